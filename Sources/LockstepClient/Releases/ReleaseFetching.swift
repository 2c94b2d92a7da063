public import LockstepCore

/// How the timeline gets windows and keys: over HTTP (``HTTPReleaseFetcher``), or anything
/// else that serves the same documents.
public protocol ReleaseFetching: Sendable {
    /// The window of `store` that starts at `start` (ms since the Unix epoch, a whole minute).
    func window(store: String, start: Int64) async throws -> ReleaseWindow

    /// The key released at `time` (ms), or `nil` when the server says it is not out yet.
    func key(store: String, time: Int64) async throws -> ReleasedKey?
}

/// A fetch the server refused, with its status and message.
public struct ReleaseFetchError: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var message: String

    public init(status: Int, message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status) \(message)" }
}
