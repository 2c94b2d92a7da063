public import Crypto
import Foundation

/// The name of a blob: the SHA-256 of its bytes, as 64 lowercase hexadecimal digits.
///
/// Blobs are content-addressed, so a name says exactly which bytes it stands for, and the same
/// photo attached twice is stored once. Written `sha256:<hex>` in references and messages.
public struct BlobHash: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 64 lowercase hexadecimal digits.
    public let hex: String

    /// A hash from its hexadecimal digits (any case); `nil` unless there are exactly 64.
    public init?(hex: some StringProtocol) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ Self.isHexDigit($0) }) else { return nil }
        self.hex = hex.lowercased()
    }

    /// A hash from its written form, `sha256:<hex>`, with lowercase digits only: the one
    /// spelling of a reference, so that a server and every client read the same references.
    public init?(_ text: some StringProtocol) {
        guard text.hasPrefix(Self.prefix) else { return nil }
        let digits = text.dropFirst(Self.prefix.count)
        guard let hash = BlobHash(hex: digits), hash.hex == digits else { return nil }
        self = hash
    }

    /// The hash of a finished digest.
    public init(digest: SHA256.Digest) {
        self.hex = Hex.encode(Array(digest))
    }

    /// The hash of `bytes`.
    public init(of bytes: [UInt8]) {
        self.init(digest: SHA256.hash(data: bytes))
    }

    public var description: String { Self.prefix + hex }

    public static func < (lhs: BlobHash, rhs: BlobHash) -> Bool { lhs.hex < rhs.hex }

    static let prefix = "sha256:"

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}

/// The hash of bytes that come in pieces (a file read a chunk at a time, an upload).
public struct BlobHasher: Sendable {
    private var hasher = SHA256()

    public init() {}

    public mutating func update(_ bytes: [UInt8]) {
        hasher.update(data: bytes)
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
    }

    public func finalize() -> BlobHash {
        BlobHash(digest: hasher.finalize())
    }
}
