import LockstepCore

/// A bucket's change version (`cv`): the opaque cursor of its change feed.
///
/// On the wire it is 24 lowercase hex characters, like the Mongo object ids Simperium used:
/// 8 for the bucket's epoch, a random number drawn when the bucket was created, and 16 for the
/// sequence number of the change. A cursor from before a bucket was dropped and created again
/// carries the old epoch, so it is refused (`cv:?`) instead of silently skipping changes.
public struct ChangeVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var epoch: UInt32
    public var sequence: Int64

    public init(epoch: UInt32, sequence: Int64) {
        self.epoch = epoch
        self.sequence = sequence
    }

    public init?(_ text: some StringProtocol) {
        guard text.utf8.count == 24,
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }),
            let epoch = UInt32(text.prefix(8), radix: 16),
            let sequence = UInt64(text.suffix(16), radix: 16), sequence <= UInt64(Int64.max)
        else { return nil }
        self.init(epoch: epoch, sequence: Int64(sequence))
    }

    public var description: String {
        var digits: [UInt8] = []
        digits.reserveCapacity(24)
        appendDigits(to: &digits)
        return String(decoding: digits, as: UTF8.self)
    }

    /// The 24 hex digits of ``description``, appended to `bytes`: every change announced writes
    /// one, and building the string by padding two conversions cost 5,000 instructions.
    public func appendDigits(to bytes: inout [UInt8]) {
        Hex.append(bigEndian: UInt64(epoch), bytes: 4, to: &bytes)
        Hex.append(bigEndian: UInt64(sequence), bytes: 8, to: &bytes)
    }

    public static func < (lhs: ChangeVersion, rhs: ChangeVersion) -> Bool {
        (lhs.epoch, lhs.sequence) < (rhs.epoch, rhs.sequence)
    }
}
