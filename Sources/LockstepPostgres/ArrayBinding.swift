package import NIOCore
package import PostgresNIO

/// Arrays of text, bigint and boolean bound as PostgreSQL arrays in the binary format, each
/// written as one run of bytes.
///
/// A group binds its columns as arrays, about thirty values a change. PostgresNIO's generic
/// array encoding writes each element through a length placeholder, the element, and the
/// length set afterwards, each a checked write into the buffer: 7 % of the server's
/// instructions per change (callgrind, `bench store` on PostgreSQL). These overloads are
/// chosen over the generic interpolation for `[String]`, `[Int64]` and `[Bool]` everywhere in
/// this module, and write the same bytes (``ArrayBindingTests`` compares the two).
extension PostgresQuery.StringInterpolation {
    mutating func appendInterpolation(_ values: [String]) {
        appendInterpolation(ArrayBinding(values))
    }

    mutating func appendInterpolation(_ values: [Int64]) {
        appendInterpolation(ArrayBinding(values))
    }

    mutating func appendInterpolation(_ values: [Bool]) {
        appendInterpolation(ArrayBinding(values))
    }
}

/// An array of one of the element types PostgreSQL's binary array format is written for here.
package struct ArrayBinding<Element: ArrayBindingElement>: PostgresNonThrowingEncodable {
    package static var psqlType: PostgresDataType { Element.arrayType }
    package static var psqlFormat: PostgresFormat { .binary }

    package var values: [Element]

    package init(_ values: [Element]) {
        self.values = values
    }

    package func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions (none when empty), no nulls, the elements' type; then the one dimension's
        // length and lower bound.
        if values.isEmpty {
            buffer.writeMultipleIntegers(UInt32(0), Int32(0), Element.elementType.rawValue)
            return
        }
        buffer.writeMultipleIntegers(UInt32(1), Int32(0), Element.elementType.rawValue, Int32(values.count), Int32(1))
        var size = 0
        for value in values { size += 4 + value.encodedSize }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { bytes in
            var offset = 0
            for value in values {
                bytes.storeBytes(of: Int32(value.encodedSize).bigEndian, toByteOffset: offset, as: Int32.self)
                offset += 4
                offset += value.write(into: bytes, at: offset)
            }
            return size
        }
    }
}

/// An element of an ``ArrayBinding``: its size and bytes in PostgreSQL's binary format.
package protocol ArrayBindingElement: Sendable {
    static var elementType: PostgresDataType { get }
    static var arrayType: PostgresDataType { get }
    var encodedSize: Int { get }
    /// Writes the value at `offset` and returns how many bytes it wrote (``encodedSize``).
    func write(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) -> Int
}

extension String: ArrayBindingElement {
    package static var elementType: PostgresDataType { .text }
    package static var arrayType: PostgresDataType { .textArray }
    package var encodedSize: Int { utf8.count }

    package func write(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        let written = utf8.withContiguousStorageIfAvailable { utf8 in
            UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<offset + utf8.count]).copyMemory(from: UnsafeRawBufferPointer(utf8))
            return utf8.count
        }
        if let written { return written }
        // A string not stored as UTF-8 (bridged): copied byte by byte.
        var index = offset
        for byte in utf8 {
            bytes[index] = byte
            index += 1
        }
        return index - offset
    }
}

extension Int64: ArrayBindingElement {
    package static var elementType: PostgresDataType { .int8 }
    package static var arrayType: PostgresDataType { .int8Array }
    package var encodedSize: Int { 8 }

    package func write(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        bytes.storeBytes(of: bigEndian, toByteOffset: offset, as: Int64.self)
        return 8
    }
}

extension Bool: ArrayBindingElement {
    package static var elementType: PostgresDataType { .bool }
    package static var arrayType: PostgresDataType { .boolArray }
    package var encodedSize: Int { 1 }

    package func write(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        bytes[offset] = self ? 1 : 0
        return 1
    }
}
