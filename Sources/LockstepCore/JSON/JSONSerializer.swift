/// Writes ``JSONValue``s as JSON text.
///
/// Output is deterministic: object members are written in the order of their names' UTF-8 bytes,
/// so the same value always gives the same bytes (what caches, hashes and commitments need).
/// Non-ASCII text is written as UTF-8, not escaped; control characters, quotes and backslashes
/// are escaped. Floating-point numbers are written in the shortest form that reads back to the
/// same `Double` and always with a decimal point or exponent, so they stay floating-point.
public struct JSONSerializer: Sendable {
    /// Whether to break lines and indent nested values by two spaces, for people to read.
    public var prettyPrinted: Bool

    public init(prettyPrinted: Bool = false) {
        self.prettyPrinted = prettyPrinted
    }

    public func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(64)
        write(value, into: &output, indent: 0)
        return output
    }

    public func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// Appends `value` to `output`: for a writer that lays out the rest of a document itself.
    public func append(_ value: JSONValue, to output: inout [UInt8]) {
        write(value, into: &output, indent: 0)
    }

    /// Appends `text` as a JSON string, quoted and escaped as ``bytes(_:)`` writes strings.
    public static func appendString(_ text: String, to output: inout [UInt8]) {
        writeString(text, into: &output)
    }

    private func write(_ value: JSONValue, into output: inout [UInt8], indent: Int) {
        switch value {
        case .null: output.appendLiteral("null")
        case .bool(let flag): flag ? output.appendLiteral("true") : output.appendLiteral("false")
        case .integer(let integer): output.appendDecimal(integer)
        case .number(let number): writeNumber(number, into: &output)
        case .string(let text): Self.writeString(text, into: &output)
        case .array(let elements): writeArray(elements, into: &output, indent: indent)
        case .object(let members): writeObject(members, into: &output, indent: indent)
        }
    }

    private func writeNumber(_ number: Double, into output: inout [UInt8]) {
        // JSON has no infinities or NaN; the parser never makes them, and a value built in
        // code that holds one is written as null rather than as invalid JSON.
        guard number.isFinite else {
            output.appendLiteral("null")
            return
        }
        output.append(contentsOf: number.description.utf8)
    }

    private func writeArray(_ elements: [JSONValue], into output: inout [UInt8], indent: Int) {
        guard !elements.isEmpty else {
            output.appendLiteral("[]")
            return
        }
        output.append(UInt8(ascii: "["))
        for (offset, element) in elements.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            breakLine(into: &output, indent: indent + 1)
            write(element, into: &output, indent: indent + 1)
        }
        breakLine(into: &output, indent: indent)
        output.append(UInt8(ascii: "]"))
    }

    private func writeObject(_ members: JSONObject, into output: inout [UInt8], indent: Int) {
        guard !members.isEmpty else {
            output.appendLiteral("{}")
            return
        }
        output.append(UInt8(ascii: "{"))
        // The members sorted with their values: looking each value up again would hash its name twice.
        for (offset, member) in members.sorted(by: { Self.utf8Order($0.key, $1.key) }).enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            breakLine(into: &output, indent: indent + 1)
            Self.writeString(member.key, into: &output)
            output.append(UInt8(ascii: ":"))
            if prettyPrinted { output.append(UInt8(ascii: " ")) }
            write(member.value, into: &output, indent: indent + 1)
        }
        breakLine(into: &output, indent: indent)
        output.append(UInt8(ascii: "}"))
    }

    private func breakLine(into output: inout [UInt8], indent: Int) {
        guard prettyPrinted else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    static func utf8Order(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        // Runs of bytes that need no escape, most strings whole, are copied at once.
        text.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                writeEscape(of: byte, into: &output)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func writeEscape(of byte: UInt8, into output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.appendLiteral(#"\""#)
        case UInt8(ascii: "\\"): output.appendLiteral(#"\\"#)
        case UInt8(ascii: "\n"): output.appendLiteral(#"\n"#)
        case UInt8(ascii: "\r"): output.appendLiteral(#"\r"#)
        case UInt8(ascii: "\t"): output.appendLiteral(#"\t"#)
        case 0x08: output.appendLiteral(#"\b"#)
        case 0x0C: output.appendLiteral(#"\f"#)
        default:
            output.appendLiteral(#"\u00"#)
            Hex.append(byte, to: &output)
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String { JSONSerializer().string(self) }

    /// The value as compact UTF-8 JSON.
    public var jsonBytes: [UInt8] { JSONSerializer().bytes(self) }
}
