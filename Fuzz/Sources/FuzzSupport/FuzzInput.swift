/// The bytes libFuzzer hands a target, and the parts a target that reads several inputs cuts
/// them into.
public struct FuzzInput {
    public let bytes: [UInt8]

    public init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    }

    /// The input cut at its first `count - 1` NUL bytes, padded with empty parts to `count`.
    ///
    /// JSON text never holds a raw NUL (it must be escaped), so NUL separates JSON parts
    /// without taking anything from them; the seeds are written the same way.
    public func parts(_ count: Int) -> [[UInt8]] {
        var parts = bytes.split(separator: 0, maxSplits: count - 1, omittingEmptySubsequences: false).map(Array.init)
        while parts.count < count { parts.append([]) }
        return parts
    }

    /// The input as text; invalid UTF-8 is repaired, as a server reading a text frame would refuse it.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
