/// Lowercase hexadecimal: how digests, keys and secrets travel in JSON and are stored.
public enum Hex {
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        for byte in bytes { append(byte, to: &text) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the two digits of `byte` to `text`.
    package static func append(_ byte: UInt8, to text: inout [UInt8]) {
        text.append(digit(byte >> 4))
        text.append(digit(byte & 0xF))
    }

    /// Appends the digits of `value`'s bytes, most significant first: zero-padded to two digits
    /// a byte of its width.
    package static func append(bigEndian value: UInt64, bytes: Int, to text: inout [UInt8]) {
        for index in (0..<bytes).reversed() { append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))), to: &text) }
    }

    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 2)
        var index = 0
        while index < characters.count {
            guard let high = value(characters[index]), let low = value(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
