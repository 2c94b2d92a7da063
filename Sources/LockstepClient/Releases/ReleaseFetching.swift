public import LockstepCore

/// How the timeline gets windows and keys: over HTTP (``HTTPReleaseFetcher``), or anything
/// else that serves the same documents (a bundle shipped with the app, a test's fake).
///
/// Implementations need not verify what they return: ``ReleaseTimeline`` verifies every
/// window and key itself.
public protocol ReleaseFetching: Sendable {
    /// The window of `store` that starts at `start` (ms since the Unix epoch, a whole minute).
    func window(store: String, start: Int64) async throws -> ReleaseWindow

    /// The key released at `time` (ms), or `nil` when the server says it is not out yet.
    func key(store: String, time: Int64) async throws -> ReleasedKey?
}

/// A fetch the server refused, with its status and message: 409 for a window not in force
/// yet, 410 for one that has ended, 404 for an unknown store.
public struct ReleaseFetchError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// The server's message, or the start of the body when it sent none.
    public var message: String

    /// A refusal with this status and message.
    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    /// The status and the message, e.g. `410 the window 1795740720000 ended 4000 ms ago; …`.
    public var description: String { "\(status) \(message)" }
}
