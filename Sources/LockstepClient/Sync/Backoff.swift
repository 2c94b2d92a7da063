/// Reconnect delays: exponential, capped, with full jitter (a random delay between zero and the
/// exponential bound), so that many clients dropped at once do not all come back at once.
///
/// ```swift
/// var configuration = LockstepClient.Configuration()
/// configuration.backoff = Backoff(initial: .seconds(1), maximum: .seconds(60))
/// ```
///
/// The bound doubles with each failed attempt, from ``initial`` to ``maximum``, and starts
/// again from ``initial`` once a connection has worked.
public struct Backoff: Sendable, Equatable {
    /// The bound of the first delay.
    public var initial: Duration
    /// The largest bound.
    public var maximum: Duration

    /// Delays bounded by `initial` at first (500 ms), doubling up to `maximum` (30 s).
    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay before attempt number `attempt` (0 for the first retry).
    func delay(attempt: Int) -> Duration {
        let bound = min(maximum, initial * Double(1 << min(attempt, 30)))
        let nanoseconds = Double(bound.components.seconds) * 1e9 + Double(bound.components.attoseconds) / 1e9
        return .nanoseconds(Int64(Double.random(in: 0...1) * nanoseconds))
    }
}
