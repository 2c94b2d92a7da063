// Conversions between `String` and arrays of Unicode scalar values, the alphabet that every
// text-diff algorithm in this folder works in.

extension String {
    /// The string's Unicode scalar values, in order.
    var scalarValues: [UInt32] {
        var values: [UInt32] = []
        // A native string knows its UTF-8 length in O(1), and it bounds the scalar count.
        values.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            values.append(scalar.value)
        }
        return values
    }

    /// Creates a string from Unicode scalar values. Values that are not Unicode scalars (the
    /// padding that patches put around a text, say) become U+FFFD.
    ///
    /// Encodes UTF-8 straight into the string's storage: building a `UnicodeScalarView` one
    /// scalar at a time is several times slower on megabyte texts.
    init(scalarValues: some Collection<UInt32>) {
        let byteCount = scalarValues.reduce(0) { $0 + UTF8Width.of(Self.validScalar($1)) }
        self.init(unsafeUninitializedCapacity: byteCount) { bytes in
            var end = 0
            for value in scalarValues.lazy.map(Self.validScalar) {
                switch UTF8Width.of(value) {
                case 1:
                    bytes[end] = UInt8(value)
                case 2:
                    bytes[end] = UInt8(0xC0 | value >> 6)
                    bytes[end + 1] = UInt8(0x80 | value & 0x3F)
                case 3:
                    bytes[end] = UInt8(0xE0 | value >> 12)
                    bytes[end + 1] = UInt8(0x80 | value >> 6 & 0x3F)
                    bytes[end + 2] = UInt8(0x80 | value & 0x3F)
                default:
                    bytes[end] = UInt8(0xF0 | value >> 18)
                    bytes[end + 1] = UInt8(0x80 | value >> 12 & 0x3F)
                    bytes[end + 2] = UInt8(0x80 | value >> 6 & 0x3F)
                    bytes[end + 3] = UInt8(0x80 | value & 0x3F)
                }
                end += UTF8Width.of(value)
            }
            return end
        }
    }

    /// The value if it is a Unicode scalar value, else U+FFFD, the replacement character.
    private static func validScalar(_ value: UInt32) -> UInt32 {
        value < 0xD800 || (0xE000 ... 0x10FFFF).contains(value) ? value : 0xFFFD
    }
}

/// How many bytes UTF-8 needs for a scalar value.
enum UTF8Width {
    static func of(_ value: UInt32) -> Int {
        switch value {
        case ..<0x80: 1
        case ..<0x800: 2
        case ..<0x1_0000: 3
        default: 4
        }
    }
}

extension Sequence<UInt32> {
    /// The length in UTF-16 code units, as JavaScript, Java, `NSString` and Simperium count:
    /// a scalar above U+FFFF takes two (a surrogate pair).
    var utf16Count: Int {
        reduce(0) { $0 + ($1 > 0xFFFF ? 2 : 1) }
    }
}
