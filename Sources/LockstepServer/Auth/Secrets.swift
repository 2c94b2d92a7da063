import Crypto
import LockstepCore

/// Random secrets (tokens, keys, ids) and the hashes they are stored as.
public enum Secrets {
    /// `byteCount` random bytes from the system's secure generator, as lowercase hex.
    public static func randomHex(byteCount: Int = 16) -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// SHA-256 of a secret, as lowercase hex: what the store keeps instead of a token or key,
    /// so a copy of the database holds none of them. (Secrets the server must read back, the
    /// peer secrets, are sealed instead: see ``ServerKey``.)
    public static func hash(_ secret: String) -> String {
        Hex.encode(Array(SHA256.hash(data: Array(secret.utf8))))
    }
}
