import Crypto

/// Random secrets (tokens, keys, ids) and the hashes they are stored as.
public enum Secrets {
    /// `byteCount` random bytes from the system's secure generator, as lowercase hex.
    public static func randomHex(byteCount: Int = 16) -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// SHA-256 of a secret, as lowercase hex: what the store keeps instead of the secret, so a
    /// copy of the database grants no access.
    public static func hash(_ secret: String) -> String {
        hex(Array(SHA256.hash(data: Array(secret.utf8))))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
