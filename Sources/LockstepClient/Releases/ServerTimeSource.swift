public import LockstepCore

/// Where the timeline reads the server's time: the client's ``ServerClock``, or a fake in tests.
///
/// ```swift
/// struct FixedTime: ServerTimeSource {      // a test's clock, moved by hand
///     var nanoseconds: Int64
///     func now() -> ServerTime? { ServerTime(nanosecondsSinceEpoch: nanoseconds, errorBound: .zero) }
/// }
/// ```
public protocol ServerTimeSource: Sendable {
    /// The server's time now, or `nil` while it is not known yet (a clock before its first
    /// exchange).
    func now() -> ServerTime?
}

extension ServerClock: ServerTimeSource {}
