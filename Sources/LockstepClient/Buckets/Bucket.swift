public import LockstepCore

/// A named set of JSON objects that syncs: what an app reads and writes.
///
/// Writes land in the local store at once (they are durable when the call returns) and are
/// sent to the server when it can be reached; reads never wait for the network.
///
/// ```swift
/// let notes = try client.bucket("notes")
/// try await notes.put("groceries", ["title": "Groceries", "done": false])
/// try await notes.update("groceries") { $0["done"] = true }
/// let note = try notes.get("groceries")          // ["title": "Groceries", "done": true]
/// for await event in notes.events { print(event.kind, event.key, event.origin) }
/// ```
///
/// Get one with ``LockstepClient/bucket(_:)`` (or ``Space/bucket(_:)`` for a space's); a
/// ``TypedBucket`` is the same bucket with `Codable` values. A bucket is a cheap value: keep it
/// or open it again as convenient. Writes to a bucket of a space this user lost throw
/// ``SpaceError/notFound(space:)``.
public struct Bucket: Sendable {
    /// The bucket's name, as the server knows it.
    public let name: String
    let replica: Replica
    /// Attachment bytes on demand (see ``Bucket/data(for:)``).
    let attachments: AttachmentCache
    /// The server, for what only it knows: the object's history (``Bucket/versions(of:before:limit:)``).
    let server: ServerAPI

    init(name: String, replica: Replica, attachments: AttachmentCache, server: ServerAPI) {
        self.name = name
        self.replica = replica
        self.attachments = attachments
        self.server = server
    }

    /// The object stored under `key`, or `nil` if there is none (or it was deleted).
    ///
    /// Answers from the local store at once: the object as this device last wrote or received
    /// it, edits not yet sent included. Throws what SQLite threw, and
    /// ``LockstepClientError/corruptStore(_:)`` for a stored object that is not JSON.
    public func get(_ key: String) throws -> JSONObject? {
        try replica.object(bucket: name, key: key)
    }

    /// Every object of the bucket, ordered by key, from the local store (deleted objects are
    /// not listed).
    ///
    /// ```swift
    /// for (key, object) in try notes.list() { print(key, object["title"]?.stringValue ?? "") }
    /// ```
    public func list() throws -> [(key: String, object: JSONObject)] {
        try replica.objects(bucket: name)
    }

    /// Stores `object` under `key`, creating the object or replacing its data.
    ///
    /// Replacing sends only what changed (a jsondiff from the last version the server
    /// acknowledged), so concurrent edits of other members on other devices are kept.
    /// The write is durable when the call returns, and waits in the outbox for the server.
    /// `priority` orders it among the other objects' changes (see ``ChangePriority``).
    ///
    /// Throws ``LockstepClientError/removed(bucket:key:)`` for a key that was deleted.
    public func put(_ key: String, _ object: JSONObject, priority: ChangePriority = .normal) async throws {
        try await replica.put(bucket: name, key: key, object: object, priority: priority)
    }

    /// Stores `object` under a new random key, and returns the key.
    ///
    /// ```swift
    /// let key = try await notes.insert(["title": "Call the movers"])
    /// ```
    ///
    /// The key is random (32 hexadecimal digits), so two devices inserting offline never
    /// collide.
    @discardableResult
    public func insert(_ object: JSONObject, priority: ChangePriority = .normal) async throws -> String {
        let key = OutboxRow.newChangeID()
        try await put(key, object, priority: priority)
        return key
    }

    /// Changes the object under `key` in place; throws ``LockstepClientError/notFound(bucket:key:)``
    /// when there is none, and ``LockstepClientError/removed(bucket:key:)`` when it was deleted.
    ///
    /// ```swift
    /// try await notes.update("groceries") { $0["done"] = true }
    /// ```
    ///
    /// `change` runs inside the store's write transaction, on the object as it is now, so no
    /// other write can slip in between the read and the write; keep it quick and free of I/O.
    /// Only the members it changes are sent. An error it throws cancels the write and is
    /// rethrown.
    public func update(
        _ key: String, priority: ChangePriority = .normal, _ change: @Sendable @escaping (inout JSONObject) throws -> Void
    ) async throws {
        try await replica.update(bucket: name, key: key, priority: priority, change)
    }

    /// Deletes the object under `key`. Deleted objects never come back: the key cannot be
    /// used again, and edits other devices make to it are dropped.
    ///
    /// Deleting a deleted object does nothing; throws ``LockstepClientError/notFound(bucket:key:)``
    /// when there never was one.
    public func delete(_ key: String, priority: ChangePriority = .normal) async throws {
        try await replica.delete(bucket: name, key: key, priority: priority)
    }

    /// Everything that happens to this bucket's objects from now on: local writes at once,
    /// changes from other devices as they arrive, and rollbacks of changes the server refused.
    ///
    /// Each access starts a new sequence; it ends when the client is closed. A slow listener
    /// gets its events buffered, never dropped.
    ///
    /// ```swift
    /// for await event in notes.events where event.origin != .local {
    ///     print("\(event.key) \(event.kind) by another device")
    /// }
    /// ```
    public var events: AsyncStream<BucketEvent> {
        replica.events.stream(for: name)
    }
}
