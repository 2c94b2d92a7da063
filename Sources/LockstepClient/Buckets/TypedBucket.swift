import LockstepCore

/// A bucket whose objects are values of one `Codable` type.
///
/// ```swift
/// struct Note: Codable, Sendable { var title: String; var done: Bool }
/// let notes = client.bucket("notes", of: Note.self)
/// try await notes.put("groceries", Note(title: "Groceries", done: false))
/// let note = try notes.get("groceries")    // Note?
/// ```
///
/// Values are stored as the JSON objects `JSONEncoder` makes of them, so other clients
/// (Simperium's among them) see ordinary JSON.
public struct TypedBucket<Value: Codable & Sendable>: Sendable {
    /// The untyped bucket underneath, for its events and anything JSON-level.
    public let raw: Bucket

    public var name: String { raw.name }

    public func get(_ key: String) throws -> Value? {
        try raw.get(key).map(Self.decode)
    }

    public func list() throws -> [(key: String, value: Value)] {
        try raw.list().map { (key: $0.key, value: try Self.decode($0.object)) }
    }

    public func put(_ key: String, _ value: Value, priority: ChangePriority = .normal) async throws {
        try await raw.put(key, try Self.encode(value), priority: priority)
    }

    @discardableResult
    public func insert(_ value: Value, priority: ChangePriority = .normal) async throws -> String {
        try await raw.insert(try Self.encode(value), priority: priority)
    }

    /// Changes the value under `key` in place; throws ``LockstepClientError/notFound(bucket:key:)``
    /// when there is none.
    public func update(_ key: String, priority: ChangePriority = .normal, _ change: @Sendable @escaping (inout Value) throws -> Void) async throws {
        try await raw.update(key, priority: priority) { object in
            var value = try Self.decode(object)
            try change(&value)
            object = try Self.encode(value)
        }
    }

    public func delete(_ key: String, priority: ChangePriority = .normal) async throws {
        try await raw.delete(key, priority: priority)
    }

    /// The bucket's events; decode each with ``BucketEvent/object(as:)``.
    public var events: AsyncStream<BucketEvent> { raw.events }

    static func encode(_ value: Value) throws -> JSONObject {
        guard case .object(let members) = try JSONValue(encoding: value) else {
            throw LockstepClientError.encoding("\(Value.self) does not encode as a JSON object")
        }
        return members
    }

    static func decode(_ object: JSONObject) throws -> Value {
        try JSONValue.object(object).decode(Value.self)
    }
}
