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
/// (Simperium's among them) see ordinary JSON. A value must encode as a JSON object (a struct
/// or class with members, not a bare string or array); one that does not throws
/// ``LockstepClientError/encoding(_:)``. Members are merged one by one, so keep a value's
/// independent parts in members of their own: two devices that edit different members offline
/// both keep their edits.
public struct TypedBucket<Value: Codable & Sendable>: Sendable {
    /// The untyped bucket underneath, for its events and anything JSON-level.
    public let raw: Bucket

    /// The bucket's name, as the server knows it.
    public var name: String { raw.name }

    /// The value stored under `key`, or `nil` if there is none (or it was deleted).
    ///
    /// Answers from the local store at once. Throws a `DecodingError` when the stored object
    /// is not a `Value` (another client wrote something else under the key).
    public func get(_ key: String) throws -> Value? {
        try raw.get(key).map(Self.decode)
    }

    /// Every value of the bucket, ordered by key, from the local store.
    ///
    /// Throws a `DecodingError` when any stored object is not a `Value`.
    public func list() throws -> [(key: String, value: Value)] {
        try raw.list().map { (key: $0.key, value: try Self.decode($0.object)) }
    }

    /// Stores `value` under `key`, creating the object or replacing its data; only the members
    /// that changed are sent. Durable when the call returns.
    ///
    /// ```swift
    /// try await notes.put("groceries", Note(title: "Groceries", done: false), priority: .urgent)
    /// ```
    ///
    /// Throws ``LockstepClientError/removed(bucket:key:)`` for a key that was deleted, and
    /// ``LockstepClientError/encoding(_:)`` for a value that is not a JSON object.
    public func put(_ key: String, _ value: Value, priority: ChangePriority = .normal) async throws {
        try await raw.put(key, try Self.encode(value), priority: priority)
    }

    /// Stores `value` under a new random key, and returns the key.
    @discardableResult
    public func insert(_ value: Value, priority: ChangePriority = .normal) async throws -> String {
        try await raw.insert(try Self.encode(value), priority: priority)
    }

    /// Changes the value under `key` in place; throws ``LockstepClientError/notFound(bucket:key:)``
    /// when there is none.
    ///
    /// ```swift
    /// try await notes.update("groceries") { $0.done = true }
    /// ```
    ///
    /// `change` runs on the value as it is now, inside the store's write transaction; only the
    /// members it changes are sent.
    public func update(_ key: String, priority: ChangePriority = .normal, _ change: @Sendable @escaping (inout Value) throws -> Void) async throws {
        try await raw.update(key, priority: priority) { object in
            var value = try Self.decode(object)
            try change(&value)
            object = try Self.encode(value)
        }
    }

    /// Deletes the object under `key`, for good: the key cannot be used again. See
    /// ``Bucket/delete(_:priority:)``.
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
