import LockstepPostgres
import NIOCore
import PostgresNIO
import PropertyBased
import Testing

/// ``ArrayBinding`` writes a statement's column arrays in one run of bytes, and must write the
/// bytes PostgresNIO's own array encoding writes, with the same type.
@Suite("Column arrays in PostgreSQL's binary format")
struct ArrayBindingTests {
    /// Text with one-, two-, three- and four-byte UTF-8, and the empty string.
    static let text = Gen.element(of: ["", "a", "é", "€", "😀", "space:", "\u{0}"]).map { $0 ?? "" }.array(of: 0...4).map { $0.joined() }

    @Test("text, bigint and boolean arrays are PostgresNIO's bytes, empty or not")
    func sameBytesAsPostgresNIO() async {
        await propertyCheck(
            count: 300, input: Self.text.array(of: 0...12), Gen.int64(in: .min ... .max).array(of: 0...12), Gen.bool.array(of: 0...12)
        ) { texts, integers, flags in
            #expect(Self.bytes(ArrayBinding(texts)) == Self.bytes(texts))
            #expect(Self.bytes(ArrayBinding(integers)) == Self.bytes(integers))
            #expect(Self.bytes(ArrayBinding(flags)) == Self.bytes(flags))
        }
        #expect(ArrayBinding<String>.psqlType == [String].psqlType)
        #expect(ArrayBinding<Int64>.psqlType == [Int64].psqlType)
        #expect(ArrayBinding<Bool>.psqlType == [Bool].psqlType)
    }

    static func bytes(_ value: some PostgresNonThrowingEncodable) -> [UInt8] {
        var buffer = ByteBuffer()
        value.encode(into: &buffer, context: .default)
        return Array(buffer.readableBytesView)
    }
}
