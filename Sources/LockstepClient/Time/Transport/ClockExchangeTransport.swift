public import LockstepCore

/// One way to ask the server for its time: send the client's `t1`, get back the server's
/// receive and send stamps. By default the ``ServerClock`` stamps `t1` and `t4` around the
/// call on its own monotonic clock, so an implementation should send at once and return as soon
/// as the reply arrives: anything it does between those moments counts as network delay and widens the
/// error bound, but never biases the estimate beyond it.
///
/// A transport that can stamp closer to the wire than that (a frame's arrival, say) implements
/// ``sample(stampingWith:)`` too.
///
/// Implementations: ``HTTPClockExchangeTransport`` (`GET /time`),
/// ``HTTPDateClockExchangeTransport`` (any HTTP server's `Date` header) and
/// ``SocketClockExchangeTransport`` (`t:<t1>` over the client's streaming socket).
public protocol ClockExchangeTransport: Sendable {
    /// Sends `t1` (the client's send time, which the server echoes) and returns the server's
    /// receive and send stamps. Throws what went wrong on the way; the clock logs it and tries
    /// again later.
    func exchange(t1: Int64) async throws -> ServerStamps

    /// One whole exchange, its local send and receive times read from `timeSource`: the send
    /// time as late as possible before the request leaves, the receive time as early as
    /// possible after the answer arrives.
    func sample(stampingWith timeSource: any MonotonicTimeSource) async throws -> ClockSample

    /// Whether a round's first exchange may have to open a connection (and so carry a
    /// handshake's round trip on its way up). `true` unless the transport runs over a
    /// connection it keeps open; an HTTP client's idle connection rarely outlives the
    /// minutes between rounds.
    var mayOpenConnection: Bool { get }
}

extension ClockExchangeTransport {
    /// `true`: a transport over a connection it does not keep open may have to open one.
    public var mayOpenConnection: Bool { true }

    /// Stamps around ``exchange(t1:)``.
    public func sample(stampingWith timeSource: any MonotonicTimeSource) async throws -> ClockSample {
        let t1 = timeSource.now()
        let stamps = try await exchange(t1: t1)
        let t4 = timeSource.now()
        return ClockSample(t1: t1, t2: stamps.received, t3: stamps.sent, t4: t4, serverResolution: stamps.resolution.nanoseconds)
    }
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

    /// The stamps of one exchange, with the resolution of the server's clock (zero for exact
    /// nanosecond stamps).
    public init(received: Int64, sent: Int64, resolution: Duration = .zero) {
        self.received = received
        self.sent = sent
        self.resolution = resolution
    }
}
