/// A JSON document: the data of every object Lockstep stores and syncs.
///
/// Integers and floating-point numbers are kept apart, so `1` and `1.0` survive a round trip
/// unchanged, and integers are exact to 64 bits (JavaScript loses precision past 2^53; Lockstep
/// does not). Object members are unordered; ``JSONSerializer`` writes them in a stable order.
///
/// Strings compare by their Unicode scalars, not by canonical equivalence: `"é"` (one scalar) and
/// `"e\u{301}"` (two) are different values, as they are for JavaScript and every Simperium client,
/// so a change from one to the other is a real change that syncs.
///
/// ```swift
/// let note: JSONValue = ["title": "Groceries", "done": false, "count": 3]
/// let parsed = try JSONValue(parsing: #"{"title":"Groceries"}"#)
/// print(parsed["title"]?.stringValue ?? "")   // Groceries
/// ```
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// The members of a JSON object.
///
/// Member names are Swift strings, so two names that differ only in Unicode normalization
/// (`"é"` and `"e\u{301}"`) name one member.
public typealias JSONObject = [String: JSONValue]

extension JSONValue {
    /// The member named `key` when this is an object; `nil` otherwise.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` when this is an array and the index is in range; `nil` otherwise.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    public var objectValue: JSONObject? {
        if case .object(let members) = self { return members }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The value when this is an integer, or a floating-point number with no fractional part
    /// that fits in 64 bits.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): return value
        case .number(let value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// The value of either kind of number, as a `Double`.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .number(let value): return value
        default: return nil
        }
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The name of this value's JSON type, for error messages: "object", "array", "string"…
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: Equatable {
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }
}

extension JSONValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case .bool(let flag):
            hasher.combine(1)
            hasher.combine(flag)
        case .integer(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .number(let value):
            hasher.combine(3)
            hasher.combine(value)
        case .string(let text):
            hasher.combine(4)
            for scalar in text.unicodeScalars { hasher.combine(scalar.value) }
        case .array(let elements):
            hasher.combine(5)
            hasher.combine(elements)
        case .object(let members):
            hasher.combine(6)
            hasher.combine(members)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral members: (String, JSONValue)...) {
        self = .object(JSONObject(members, uniquingKeysWith: { _, last in last }))
    }
}
