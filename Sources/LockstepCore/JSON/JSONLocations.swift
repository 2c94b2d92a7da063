/// Where each value of a JSON document starts, so that a configuration file's errors can name
/// the line: `store.json:12: stores[0].slots: must be between 1 and 1000`.
///
/// ```swift
/// let located = try JSONParser().parseLocated(bytes)
/// let slots: JSONPath = [.member("stores"), .index(0), .member("slots")]
/// located.locations[slots]?.line   // 12
/// ```
public struct JSONLocations: Sendable {
    private var starts: [JSONPath: JSONLocation] = [:]

    public init() {}

    /// Turns byte offsets into lines and columns with one pass over the text.
    init(offsets: [JSONPath: Int], in bytes: UnsafeBufferPointer<UInt8>) {
        var lineStarts = [0]
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") { lineStarts.append(index + 1) }
        for (path, offset) in offsets {
            var low = 0
            var high = lineStarts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
            }
            starts[path] = JSONLocation(offset: offset, line: low + 1, column: offset - lineStarts[low] + 1)
        }
    }

    /// Where the value at `path` starts, or `nil` when the document has no such value.
    public subscript(path: JSONPath) -> JSONLocation? {
        starts[path]
    }
}

/// A place in JSON text, counting lines and columns (bytes) from 1.
public struct JSONLocation: Sendable, Hashable {
    public var offset: Int
    public var line: Int
    public var column: Int

    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }
}

/// The way from a document's root to one of its values: member names and array indices.
public struct JSONPath: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case member(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    public init(arrayLiteral components: Component...) {
        self.components = components
    }

    public func appending(_ component: Component) -> JSONPath {
        JSONPath(components + [component])
    }

    public static func / (path: JSONPath, member: String) -> JSONPath { path.appending(.member(member)) }
    public static func / (path: JSONPath, index: Int) -> JSONPath { path.appending(.index(index)) }

    /// The path as people write it: `stores[0].slots`; the root is `$`.
    public var description: String {
        guard !components.isEmpty else { return "$" }
        var text = ""
        for component in components {
            switch component {
            case .member(let name): text += text.isEmpty ? name : "." + name
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}

/// A parsed document with the location of every value in it.
public struct LocatedJSON: Sendable {
    public var value: JSONValue
    public var locations: JSONLocations
}

extension JSONParser {
    /// Parses one JSON document as `parse(_:)` does (same values, same errors) and also
    /// records where each value starts.
    public func parseLocated(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> LocatedJSON {
        try Array(bytes).withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) in
                var reader = JSONReader(bytes: buffer, maximumDepth: maximumDepth)
                var offsets: [JSONPath: Int] = [:]
                reader.skipWhitespace()
                let value = try reader.readLocatedValue(path: JSONPath(), depth: 0, into: &offsets)
                reader.skipWhitespace()
                if reader.position != buffer.count { throw reader.error("unexpected data after the JSON value") }
                return LocatedJSON(value: value, locations: JSONLocations(offsets: offsets, in: buffer))
            }
        }.get()
    }
}

extension JSONReader {
    /// Reads a value like ``readValue(depth:)``, walking containers here so that every member
    /// and element gets its path recorded; scalars are left to the plain reader.
    fileprivate mutating func readLocatedValue(path: JSONPath, depth: Int, into offsets: inout [JSONPath: Int]) throws(JSONParseError) -> JSONValue {
        offsets[path] = position
        guard position < bytes.count else { return try readValue(depth: depth) }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try readLocatedObject(path: path, depth: depth + 1, into: &offsets)
        case UInt8(ascii: "["): return try readLocatedArray(path: path, depth: depth + 1, into: &offsets)
        default: return try readValue(depth: depth)
        }
    }

    private mutating func readLocatedObject(path: JSONPath, depth: Int, into offsets: inout [JSONPath: Int]) throws(JSONParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
        position += 1
        var members = JSONObject()
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a member name in double quotes")
            }
            let name = try readString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw error("expected ':' after the member name \"\(name)\"")
            }
            position += 1
            skipWhitespace()
            members[name] = try readLocatedValue(path: path / name, depth: depth, into: &offsets)
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input inside an object") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            default: throw error("expected ',' or '}' after an object member")
            }
        }
    }

    private mutating func readLocatedArray(path: JSONPath, depth: Int, into offsets: inout [JSONPath: Int]) throws(JSONParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try readLocatedValue(path: path / elements.count, depth: depth, into: &offsets))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of input inside an array") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: throw error("expected ',' or ']' after an array element")
            }
        }
    }
}
