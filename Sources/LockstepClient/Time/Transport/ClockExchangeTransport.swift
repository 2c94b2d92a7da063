/// One way to ask the server for its time: send the client's `t1`, get back the server's
/// receive and send stamps. The ``ServerClock`` stamps `t1` and `t4` around the call on its own
/// monotonic clock, so an implementation should send at once and return as soon as the reply
/// arrives: anything it does between those moments counts as network delay and widens the
/// error bound, but never biases the estimate beyond it.
///
/// Implementations: ``HTTPClockExchangeTransport`` (`GET /time`) and
/// ``HTTPDateClockExchangeTransport`` (any HTTP server's `Date` header). A streaming session
/// conforms by sending `t:<t1>` and resuming with the `t:<t1>:<t2>:<t3>` answer.
public protocol ClockExchangeTransport: Sendable {
    func exchange(t1: Int64) async throws -> ServerStamps
}

/// The server's half of an exchange, in nanoseconds since the Unix epoch.
public struct ServerStamps: Sendable, Hashable {
    /// When the request arrived (t2).
    public var received: Int64
    /// When the reply left (t3).
    public var sent: Int64
    /// How coarse the stamps are: the true times lie up to this much after them. Zero for
    /// nanosecond stamps; one second for an HTTP `Date` header.
    public var resolution: Duration

    public init(received: Int64, sent: Int64, resolution: Duration = .zero) {
        self.received = received
        self.sent = sent
        self.resolution = resolution
    }
}
