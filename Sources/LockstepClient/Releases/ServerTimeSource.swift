/// Where the timeline reads the server's time: the client's `ServerClock`, or a fake in tests.
///
/// ```swift
/// extension ServerClock: ServerTimeSource {}   // once it has `now() -> Int64`
/// ```
public protocol ServerTimeSource: Sendable {
    /// The server's time now, in nanoseconds since the Unix epoch.
    func now() -> Int64
}
