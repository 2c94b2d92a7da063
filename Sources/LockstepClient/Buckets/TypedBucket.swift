import LockstepCore

/// A bucket whose objects are values of one `Codable` type.
///
/// ```swift
/// struct Note: Codable, Sendable { var title: String; var done: Bool }
/// let notes = try client.bucket("notes", of: Note.self)
/// try await notes.put("groceries", Note(title: "Groceries", done: false))
/// try await notes.update("groceries") { $0.done = true }
/// let note = try notes.get("groceries")    // Note?
/// ```
///
/// Values are stored as the JSON objects `JSONEncoder` makes of them, so other clients
/// (Simperium's among them) see ordinary JSON. A value must encode as a JSON object (a struct
/// or class with members, not a bare string or array); one that does not throws
/// ``LockstepClientError/encoding(_:)``. Members are merged one by one, so keep a value's
/// independent parts in members of their own: two devices that edit different members offline
/// both keep their edits.
///
/// ## Members the type does not model
///
/// An object may hold more than `Value` models: a photo attached with
/// ``Bucket/attach(_:type:to:member:priority:)``, a field a newer version of the app added (at
/// the top or inside a nested object), a member a web page or another client writes. Typed
/// writes never remove them: ``put(_:_:priority:)`` and ``update(_:priority:_:)`` encode the
/// value before and after the edit and change only the members whose encoding changed, so
/// everything else stays as it is, on this device, on the server and on every other device.
/// An optional member set to `nil` is removed, as its encoding drops it. To make the object
/// exactly what `Value` encodes, dropping everything else, call ``replace(_:with:priority:)``.
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

    /// Stores `value` under `key`: creates the object, or changes the members of the stored
    /// object whose encoding `value` changes. Durable when the call returns; only the members
    /// that changed are sent.
    ///
    /// ```swift
    /// try await notes.put("groceries", Note(title: "Groceries", done: false), priority: .urgent)
    /// ```
    ///
    /// The stored object is read as a `Value` and encoded again, and that encoding is compared
    /// with `value`'s: only the members whose encoding differs are written, so the members
    /// `Value` does not model stay as they are (see ``TypedBucket``). When the stored object is
    /// not a `Value`, every member `value` encodes is written and the others stay. To drop the
    /// members `Value` does not model, call ``replace(_:with:priority:)``.
    ///
    /// Throws ``LockstepClientError/removed(bucket:key:)`` for a key that was deleted, and
    /// ``LockstepClientError/encoding(_:)`` for a value that is not a JSON object.
    public func put(_ key: String, _ value: Value, priority: ChangePriority = .normal) async throws {
        let new = try Self.encode(value)
        try await raw.replica.put(bucket: name, key: key, priority: priority) { stored in
            guard let stored else { return new }
            let old = (try? Self.decode(stored)).flatMap { try? Self.encode($0) } ?? [:]
            return EncodedEdit.apply(from: old, to: new, onto: stored)
        }
    }

    /// Makes the object under `key` exactly what `value` encodes, creating it if there is none:
    /// every member `Value` does not model is removed (an attached photo, a newer app version's
    /// field), on this device, on the server and on every other device.
    ///
    /// ```swift
    /// try await notes.replace("groceries", with: Note(title: "Groceries", done: false))
    /// ```
    ///
    /// Only the members that changed are sent, as with ``put(_:_:priority:)``; what differs is
    /// that a member `value` does not encode counts as changed, to nothing. Use it to reset an
    /// object; to store a value, use ``put(_:_:priority:)``.
    ///
    /// Throws ``LockstepClientError/removed(bucket:key:)`` for a key that was deleted, and
    /// ``LockstepClientError/encoding(_:)`` for a value that is not a JSON object.
    public func replace(_ key: String, with value: Value, priority: ChangePriority = .normal) async throws {
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
    /// `change` runs on the value as it is now, inside the store's write transaction. The value
    /// is encoded before and after it, and only the members whose encoding changed are written
    /// and sent: every member `Value` does not model stays as it is (see ``TypedBucket``).
    /// Throws a `DecodingError` when the stored object is not a `Value`, and what `change`
    /// threw (the write is then cancelled).
    public func update(_ key: String, priority: ChangePriority = .normal, _ change: @Sendable @escaping (inout Value) throws -> Void) async throws {
        try await raw.update(key, priority: priority) { object in
            var value = try Self.decode(object)
            let old = try Self.encode(value)
            try change(&value)
            object = EncodedEdit.apply(from: old, to: try Self.encode(value), onto: object)
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
