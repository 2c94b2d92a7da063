/// Hints that ask the differ for a particular operation where the default would be another:
/// the `otype` policies of Simperium's jsondiff.
///
/// Without a schema, numbers, booleans and lists are replaced (`r`), strings get text deltas
/// (`d`) and objects recurse (`O`). A schema can ask for increments (`I`) on a counter, index
/// diffs (`L`) or line deltas (`dL`) on a list, or a plain replace on a string.
///
/// In JSON, a schema maps member names to hints, `{"count": {"otype": "integer"}}`; a hint may
/// nest `attributes` for an object's members and `item` for a list's elements:
/// `{"rows": {"otype": "list", "item": {"attributes": {"n": {"otype": "integer"}}}}}`.
public struct DiffSchema: Sendable, Hashable {
    public enum OperationType: String, Sendable, Hashable {
        case replace
        case list
        case listText = "list_dmp"
        case integer
        case string
    }

    public var operationType: OperationType?
    public var members: [String: DiffSchema]
    public var item: Box?

    /// Indirection so a schema can hold the schema of its list's items.
    public final class Box: Sendable, Hashable {
        public let schema: DiffSchema
        public init(_ schema: DiffSchema) { self.schema = schema }
        public static func == (lhs: Box, rhs: Box) -> Bool { lhs.schema == rhs.schema }
        public func hash(into hasher: inout Hasher) { hasher.combine(schema) }
    }

    public init(operationType: OperationType? = nil, members: [String: DiffSchema] = [:], item: DiffSchema? = nil) {
        self.operationType = operationType
        self.members = members
        self.item = item.map(Box.init)
    }

    /// Reads a schema from its JSON form; unknown `otype`s are refused with the path.
    public init(json: JSONValue) throws(DiffError) {
        try self.init(json: json, at: DiffPath())
    }

    private init(json: JSONValue, at path: DiffPath) throws(DiffError) {
        guard case .object(var fields) = json else {
            throw DiffError(.malformed, at: path, "a schema must be an object, not \(json.typeName)")
        }
        self.init()
        if case .string(let name)? = fields.removeValue(forKey: "otype") {
            guard let type = OperationType(rawValue: name) else {
                throw DiffError(.unknownOperation, at: path, "unknown otype \"\(name)\"")
            }
            operationType = type
        }
        if let itemSchema = fields.removeValue(forKey: "item") {
            item = Box(try DiffSchema(json: itemSchema, at: path.appending(member: "item")))
        }
        if case .object(let attributes)? = fields.removeValue(forKey: "attributes") {
            fields = attributes
        }
        for (name, member) in fields {
            members[name] = try DiffSchema(json: member, at: path.appending(member: name))
        }
    }
}
