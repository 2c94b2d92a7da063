public import LockstepCore

/// Something that happened to an object of a bucket: what ``Bucket/events`` delivers.
///
/// Local writes show at once (``Origin/local``); changes from other devices arrive as
/// ``Origin/remote``, or ``Origin/peer`` when a nearby device passed them on; a local change the server refused is undone and reported as
/// ``Origin/rejected(code:message:)``, so the app can tell the user; objects of a ``Space`` this
/// user lost go with ``Origin/revoked(message:)``.
///
/// ```swift
/// for await event in notes.events {
///     switch (event.kind, event.origin) {
///     case (_, .rejected(let code, let message)): alert("not saved (\(code)): \(message ?? "")")
///     case (.deleted, _): list.remove(event.key)
///     default: list.show(event.key, event.object)
///     }
/// }
/// ```
///
/// Events describe what the app sees change, after the write that caused them committed: an
/// edit that leaves the object as it was makes none.
public struct BucketEvent: Sendable, Equatable {
    /// What happened to the object, as the app sees it.
    public enum Kind: Sendable, Equatable {
        /// The object appeared: written for the first time, or received from elsewhere.
        case inserted
        /// The object's data changed.
        case updated
        /// The object is gone: deleted here or elsewhere, removed by the server (a presence
        /// object whose connection closed), rolled back (an insertion the server refused), or
        /// taken away with a space.
        case deleted
    }

    /// Where the event came from: this device, the server, a nearby device, or a refusal.
    public enum Origin: Sendable, Equatable {
        /// A write made through this client.
        case local
        /// A change that came from the server.
        case remote
        /// A change that came straight from a nearby device (``PeerSync``), the server unseen.
        case peer
        /// The server refused a local change (Simperium error codes: 410 removed, 413 too
        /// large, 440 invalid…), and the object went back to what the server holds.
        case rejected(code: Int, message: String?)
        /// This user lost the space the bucket belongs to (an owner removed them, or deleted
        /// it; or they left): the object is gone from this device, and the bucket no longer
        /// syncs. `message` is the server's reason, e.g. "you were removed from space job-1234".
        case revoked(message: String)
    }

    /// What happened: inserted, updated or deleted.
    public var kind: Kind
    /// The bucket's name (for a space's bucket, `__<space>.<bucket>`).
    public var bucket: String
    /// The object's key.
    public var key: String
    /// The object after the event; `nil` when it was deleted.
    public var object: JSONObject?
    /// Who caused the event.
    public var origin: Origin

    /// An event with these parts; the client makes them, tests and previews may too.
    public init(kind: Kind, bucket: String, key: String, object: JSONObject?, origin: Origin) {
        self.kind = kind
        self.bucket = bucket
        self.key = key
        self.object = object
        self.origin = origin
    }

    /// The object decoded as `T`; `nil` when it was deleted.
    ///
    /// ```swift
    /// for await event in matches.events {
    ///     guard let match = try? event.object(as: Match.self) else { continue }
    ///     show(match)
    /// }
    /// ```
    /// - Throws: A `DecodingError` when the object is not a `T`.
    public func object<T: Decodable>(as type: T.Type) throws -> T? {
        try object.map { try JSONValue.object($0).decode(type) }
    }

    /// The event that takes an object from `old` to `new`, if anything visible changed.
    static func between(_ old: LocalState, _ new: LocalState, bucket: String, key: String, origin: Origin) -> BucketEvent? {
        switch (old.data, new.data) {
        case (nil, let object?): BucketEvent(kind: .inserted, bucket: bucket, key: key, object: object, origin: origin)
        case (_?, nil): BucketEvent(kind: .deleted, bucket: bucket, key: key, object: nil, origin: origin)
        case (let before?, let after?) where before != after:
            BucketEvent(kind: .updated, bucket: bucket, key: key, object: after, origin: origin)
        default: nil
        }
    }
}
