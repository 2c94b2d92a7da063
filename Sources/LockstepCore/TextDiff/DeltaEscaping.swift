/// The escaping of inserted text in a delta: JavaScript's `encodeURI`, then `%20` turned back
/// into a space, which is what diff-match-patch writes (and Simperium's Python server imitates
/// with `urllib.quote(text, "!~*'();/?:@&=+$,# ")`).
enum DeltaEscaping {
    /// Appends the escaped UTF-8 of `scalars` to `output`: bytes outside the unescaped set
    /// become `%XX`, in upper-case hex.
    static func escape(_ scalars: [UInt32], into output: inout [UInt8]) {
        for scalar in scalars {
            if scalar < 0x80 && isUnescaped[Int(scalar)] {
                output.append(UInt8(scalar))
                continue
            }
            // Values that are not scalars (patch padding, in a description) escape as U+FFFD.
            let scalar = Unicode.Scalar(ScalarValue.validOrReplacement(scalar)) ?? "\u{FFFD}"
            UTF8.encode(scalar) { byte in
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            }
        }
    }

    /// Decodes every `%XX` escape (either case) to its byte and passes every other byte
    /// through; `+` stays `+`. Returns `nil` for a `%` not followed by two hex digits.
    static func unescape(_ escaped: some Collection<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(escaped.count)
        var iterator = escaped.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// `A-Z a-z 0-9 ; , / ? : @ & = + $ - _ . ! ~ * ' ( ) #` and space, indexed by ASCII code.
    private static let isUnescaped: [Bool] = (0 ..< 128).map { code in
        let character = Character(Unicode.Scalar(UInt8(code)))
        return character.isASCII && (character.isLetter || character.isNumber)
            || ";,/?:@&=+$-_.!~*'()# ".contains(character)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
