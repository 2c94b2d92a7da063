/// Appending text that needs no escaping to bytes being written (JSON, wire messages).
///
/// Appending a literal through its `String.UTF8View` takes the generic path, about 150
/// instructions for a few bytes, and a number through `String(n).utf8` makes a string first;
/// the writers of every announced change did a few dozen of each (callgrind).
extension Array where Element == UInt8 {
    /// Appends a literal's bytes from its static storage.
    package mutating func appendLiteral(_ text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends an integer in decimal, as `String(value)` writes it.
    package mutating func appendDecimal(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = count
        repeat {
            append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        var low = start, high = count - 1
        while low < high {
            swapAt(low, high)
            low += 1
            high -= 1
        }
    }
}
