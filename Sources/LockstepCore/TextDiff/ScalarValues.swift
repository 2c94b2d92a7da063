// Conversions between `String` and arrays of Unicode scalar values, the alphabet that every
// text-diff algorithm in this folder works in.

extension String {
    /// The string's Unicode scalar values, in order.
    ///
    /// Decodes the UTF-8 storage directly, which a `String` guarantees to be valid: iterating
    /// `unicodeScalars` is several times slower on megabyte texts.
    var scalarValues: [UInt32] {
        var string = self
        return string.withUTF8 { utf8 in
            // There are never more scalars than UTF-8 bytes.
            [UInt32](unsafeUninitializedCapacity: utf8.count) { scalars, count in
                var index = 0
                count = 0
                while index < utf8.count {
                    let lead = UInt32(utf8[index])
                    switch lead {
                    case ..<0x80:
                        scalars[count] = lead
                        index += 1
                    case ..<0xE0:
                        scalars[count] = (lead & 0x1F) << 6 | UInt32(utf8[index + 1] & 0x3F)
                        index += 2
                    case ..<0xF0:
                        scalars[count] = (lead & 0x0F) << 12 | UInt32(utf8[index + 1] & 0x3F) << 6
                            | UInt32(utf8[index + 2] & 0x3F)
                        index += 3
                    default:
                        scalars[count] = (lead & 0x07) << 18 | UInt32(utf8[index + 1] & 0x3F) << 12
                            | UInt32(utf8[index + 2] & 0x3F) << 6 | UInt32(utf8[index + 3] & 0x3F)
                        index += 4
                    }
                    count += 1
                }
            }
        }
    }

    /// Creates a string from Unicode scalar values. Values that are not Unicode scalars (the
    /// padding that patches put around a text, say) become U+FFFD.
    ///
    /// Encodes UTF-8 straight into the string's storage: building a `UnicodeScalarView` one
    /// scalar at a time is several times slower on megabyte texts.
    init(scalarValues: some Collection<UInt32>) {
        var byteCount = 0
        for value in scalarValues {
            byteCount += ScalarValue.utf8Width(ScalarValue.validOrReplacement(value))
        }
        self.init(unsafeUninitializedCapacity: byteCount) { bytes in
            var end = 0
            for value in scalarValues {
                let value = ScalarValue.validOrReplacement(value)
                switch value {
                case ..<0x80:
                    bytes[end] = UInt8(value)
                    end += 1
                case ..<0x800:
                    bytes[end] = UInt8(0xC0 | value >> 6)
                    bytes[end + 1] = UInt8(0x80 | value & 0x3F)
                    end += 2
                case ..<0x1_0000:
                    bytes[end] = UInt8(0xE0 | value >> 12)
                    bytes[end + 1] = UInt8(0x80 | value >> 6 & 0x3F)
                    bytes[end + 2] = UInt8(0x80 | value & 0x3F)
                    end += 3
                default:
                    bytes[end] = UInt8(0xF0 | value >> 18)
                    bytes[end + 1] = UInt8(0x80 | value >> 12 & 0x3F)
                    bytes[end + 2] = UInt8(0x80 | value >> 6 & 0x3F)
                    bytes[end + 3] = UInt8(0x80 | value & 0x3F)
                    end += 4
                }
            }
            return end
        }
    }

}

/// Facts about scalar values held as plain `UInt32`s.
enum ScalarValue {
    /// How many bytes UTF-8 needs for a scalar value.
    static func utf8Width(_ value: UInt32) -> Int {
        switch value {
        case ..<0x80: 1
        case ..<0x800: 2
        case ..<0x1_0000: 3
        default: 4
        }
    }

    /// The value if it is a Unicode scalar value, else U+FFFD, the replacement character.
    static func validOrReplacement(_ value: UInt32) -> UInt32 {
        value < 0xD800 || (0xE000 ... 0x10FFFF).contains(value) ? value : 0xFFFD
    }
}

extension Sequence<UInt32> {
    /// The length in UTF-16 code units, as JavaScript, Java, `NSString` and Simperium count:
    /// a scalar above U+FFFF takes two (a surrogate pair).
    var utf16Count: Int {
        reduce(0) { $0 + ($1 > 0xFFFF ? 2 : 1) }
    }
}
