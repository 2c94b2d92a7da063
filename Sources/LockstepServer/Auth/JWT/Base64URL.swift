/// The unpadded base64url of JWTs and JWKs (RFC 7515 §2): `A–Z a–z 0–9 - _`, no `=`.
///
/// Strict: a character outside the alphabet, padding, or a length no encoding has (one
/// character past a multiple of four) is refused, so one token has one reading.
enum Base64URL {
    /// The bytes `text` encodes, or `nil` when it is not unpadded base64url.
    static func decode(_ text: String) -> [UInt8]? {
        decode(utf8: text.utf8)
    }

    /// The bytes the UTF-8 `text` encodes, or `nil` when it is not unpadded base64url.
    static func decode(utf8 text: some Collection<UInt8>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in text {
            guard let value = sextet(character) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Two characters make one byte, three two: a lone trailing character encodes nothing,
        // and left-over bits must be zero, as an encoder writes them.
        guard bits < 6, accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return bytes
    }

    /// `bytes` as unpadded base64url.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int(accumulator >> UInt32(bits) & 63)])
            }
        }
        if bits > 0 { output.append(alphabet[Int(accumulator << UInt32(6 - bits) & 63)]) }
        return String(decoding: output, as: UTF8.self)
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
