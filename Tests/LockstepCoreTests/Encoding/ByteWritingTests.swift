@testable import LockstepCore
import PropertyBased
import Testing

/// The byte writers behind JSON and the wire messages write what `String` would.
@Suite("Writing text into bytes")
struct ByteWritingTests {
    @Test("an integer is written as String(_:) writes it")
    func decimalIsStringsDigits() async {
        for value: Int64 in [0, 1, -1, 9, 10, -10, .max, .min] {
            var bytes: [UInt8] = [0x2C]
            bytes.appendDecimal(value)
            #expect(bytes == [0x2C] + Array(String(value).utf8))
        }
        await propertyCheck(count: 500, input: Gen.int64(in: .min ... .max), Gen.int(in: 0...18)) { value, shift in
            let value = value >> Int64(shift * 3)
            var bytes: [UInt8] = []
            bytes.appendDecimal(value)
            #expect(bytes == Array(String(value).utf8))
        }
    }

    @Test func aLiteralIsItsBytes() {
        var bytes: [UInt8] = [0x7B]
        bytes.appendLiteral(#""o":"é"#)
        #expect(bytes == [0x7B] + Array(#""o":"é"#.utf8))
    }
}
