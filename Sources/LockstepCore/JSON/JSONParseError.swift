/// Why a text is not the JSON document it was expected to be, and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, in words: "expected ',' or '}' after an object member".
    public var message: String
    /// The byte offset of the problem in the UTF-8 input.
    public var offset: Int
    /// The line of the problem, counting from 1.
    public var line: Int
    /// The column of the problem in bytes, counting from 1.
    public var column: Int

    public var description: String { "line \(line), column \(column): \(message)" }
}
