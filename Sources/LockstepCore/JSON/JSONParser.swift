/// Reads JSON text into ``JSONValue``s.
///
/// The parser works on UTF-8 bytes in one pass, rejects everything RFC 8259 rejects (trailing
/// commas, comments, lone surrogates, invalid UTF-8, control characters in strings, numbers
/// with leading zeros) and reports the line and column of the first problem. Integers that fit
/// in 64 bits become ``JSONValue/integer(_:)``; other numbers become ``JSONValue/number(_:)``.
/// When an object names a member twice, the last one wins, as in JavaScript.
public struct JSONParser: Sendable {
    /// How deeply arrays and objects may nest before the input is refused, so that hostile
    /// input cannot exhaust the stack.
    public var maximumDepth: Int

    public init(maximumDepth: Int = 512) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON document, which may be surrounded by whitespace and nothing else.
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) in try parseDocument(buffer) }
        }
        if let result { return try result.get() }
        return try Array(bytes).withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) in try parseDocument(buffer) }
        }.get()
    }

    /// Parses one JSON document from text.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        return try text.withUTF8 { buffer in
            Result { () throws(JSONParseError) in try parseDocument(buffer) }
        }.get()
    }

    private func parseDocument(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var reader = JSONReader(bytes: buffer, maximumDepth: maximumDepth)
        reader.skipWhitespace()
        let value = try reader.readValue(depth: 0)
        reader.skipWhitespace()
        if reader.position != buffer.count {
            throw reader.error("unexpected data after the JSON value")
        }
        return value
    }
}

extension JSONValue {
    /// Parses JSON text with the default ``JSONParser``.
    public init(parsing text: String) throws(JSONParseError) {
        self = try JSONParser().parse(text)
    }

    /// Parses UTF-8 encoded JSON with the default ``JSONParser``.
    public init(parsing bytes: some Collection<UInt8>) throws(JSONParseError) {
        self = try JSONParser().parse(bytes)
    }
}
