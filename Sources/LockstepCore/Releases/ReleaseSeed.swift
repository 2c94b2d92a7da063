import Crypto
import Foundation

/// The secret every release is derived from: the schedule, the items and the key chains.
///
/// Servers that share the seed and the configuration produce the same windows byte for byte
/// with no coordination; anyone who learns the seed learns every future item, so keep it like
/// a password (`openssl rand -hex 32 > store-seed`).
///
/// Everything is derived with HKDF-SHA256 (salt `lockstep-releases-v1`), under an `info` that
/// names what the key is for:
///
/// | info | use |
/// |---|---|
/// | `schedule\|{store}` | the HMAC key of the store's ``ReleaseRandom`` |
/// | `chain\|{store}\|{epoch}` | the last key of the store's chain for that epoch (``ReleaseKeyChain``) |
public struct ReleaseSeed: Sendable {
    /// The fewest characters a seed may have.
    public static let minimumLength = 32
    static let salt = Array("lockstep-releases-v1".utf8)

    let key: SymmetricKey

    /// A seed from its text (a file or an environment variable), ignoring surrounding
    /// whitespace so that a trailing newline does not make two nodes disagree.
    public init(text: String) throws(ReleaseSeedError) {
        let trimmed = text.unicodeScalars
            .drop(while: \.properties.isWhitespace)
            .reversed().drop(while: \.properties.isWhitespace).reversed()
        let seed = String(String.UnicodeScalarView(trimmed))
        guard seed.utf8.count >= Self.minimumLength else { throw ReleaseSeedError(length: seed.utf8.count) }
        self.key = SymmetricKey(data: Array(seed.utf8))
    }

    /// The schedule's random source for one store.
    public func random(store: String) -> ReleaseRandom {
        ReleaseRandom(key: derive("schedule|\(store)"))
    }

    /// The last (secret) key of a store's chain for one epoch; see ``ReleaseKeyChain``.
    func chainHead(store: String, epoch: Int64) -> [UInt8] {
        derive("chain|\(store)|\(epoch)").withUnsafeBytes { Array($0) }
    }

    private func derive(_ info: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: Self.salt, info: Array(info.utf8), outputByteCount: 32)
    }
}

/// Why a seed was refused.
public struct ReleaseSeedError: Error, Sendable, Equatable, CustomStringConvertible {
    public var length: Int
    public var description: String {
        "the store seed has \(length) characters; it needs at least \(ReleaseSeed.minimumLength) (try: openssl rand -hex 32)"
    }
}

/// Random numbers that are a pure function of the seed and a label: HMAC-SHA256 of the label,
/// so any draw can be made on its own, in any order, on any node, with the same result.
///
/// ```swift
/// let random = seed.random(store: "main")
/// random.uniform(below: 6, "die|\(roll)")   // the same roll everywhere
/// ```
public struct ReleaseRandom: Sendable {
    let key: SymmetricKey

    /// A number in `0..<bound` (`bound` > 0) for `label`.
    ///
    /// The 64 high bits of the HMAC are scaled into range by a full-width multiply (Lemire's
    /// method without rejection); the bias is below bound / 2^64, nothing a store can notice.
    public func uniform(below bound: UInt64, _ label: String) -> UInt64 {
        precondition(bound > 0, "a bound must be positive")
        let code = HMAC<SHA256>.authenticationCode(for: Array(label.utf8), using: key)
        let bits = code.withUnsafeBytes { bytes in
            bytes.prefix(8).reduce(UInt64(0)) { value, byte in value << 8 | UInt64(byte) }
        }
        return bits.multipliedFullWidth(by: bound).high
    }
}
