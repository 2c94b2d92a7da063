/// Why a call on a ``LockstepClient`` failed.
///
/// ```swift
/// do {
///     try await notes.put("groceries", ["title": "Groceries"])
/// } catch LockstepClientError.removed(let bucket, let key) {
///     print("\(bucket)/\(key) was deleted; choose another key")
/// }
/// ```
///
/// Refusals of changes the server reads later, after the write returned, do not throw: they
/// arrive as ``BucketEvent`` of origin ``BucketEvent/Origin/rejected(code:message:)`` and stay
/// in ``Outbox/rejected``.
public enum LockstepClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The object was removed; in Lockstep removed objects never come back, so a key once
    /// removed cannot be written again.
    case removed(bucket: String, key: String)
    /// There is no object with this key.
    case notFound(bucket: String, key: String)
    /// The change was already sent to the server, so it can no longer be cancelled.
    case alreadySent(changeID: String)
    /// The server refused the token.
    case unauthorized(String)
    /// The server answered something this client cannot use.
    case protocolViolation(String)
    /// The local database holds something this client did not write.
    case corruptStore(String)
    /// A wait did not finish in time.
    case timedOut(String)
    /// An object or value could not be encoded to, or decoded from, JSON.
    case encoding(String)

    /// A sentence saying what went wrong, for logs and for people.
    public var description: String {
        switch self {
        case .removed(let bucket, let key): "\(bucket)/\(key) was removed, and removed objects never come back"
        case .notFound(let bucket, let key): "\(bucket)/\(key) does not exist"
        case .alreadySent(let changeID): "change \(changeID) was already sent and cannot be cancelled"
        case .unauthorized(let message): "the server refused the token: \(message)"
        case .protocolViolation(let message): "unexpected answer from the server: \(message)"
        case .corruptStore(let text): "the local store holds something unreadable: \(text.prefix(80))"
        case .timedOut(let what): "timed out waiting for \(what)"
        case .encoding(let message): "JSON encoding failed: \(message)"
        }
    }
}
