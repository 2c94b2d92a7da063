import LockstepClient
import Synchronization

/// A deterministic device, network and server in one: the device's monotonic clock (which
/// only moves when the simulation says so), the server's clock (a known offset and rate
/// away, stepped where the test says), and a network that delays each leg by a
/// ``DelayModel``. It serves a ``ServerClock`` as both its time source and its transport, so a
/// simulated hour takes milliseconds.
final class SimulatedWorld: Sendable {
    /// Server time minus device time at device time zero: a boot in mid-2025, plus change.
    static let offsetAtBoot: Int64 = 1_748_761_200_123_456_789
    /// Device time when a world begins: an hour after boot.
    static let start: Int64 = 3_600_000_000_000

    /// The server's clock set forward by `by` nanoseconds (backward if negative) at device time `at`.
    struct Step: Sendable {
        var at: Int64
        var by: Int64
    }

    let delays: DelayModel
    /// The server's rate over the device's, minus one (20e-6: the server gains 20 µs a second).
    let rate: Double
    /// Where the server's clock is set while the world runs.
    let steps: [Step]
    /// Whether the network makes a new connection's first request wait for a handshake, as a
    /// real one does; `nil` for a connection that is always open.
    let connectionIdleTimeout: Duration?
    private let state: Mutex<State>

    private struct State {
        var now: Int64
        var random: SeededRandom
        var bursts = QueueBursts()
        var exchanges = 0
        var failures: Set<Int> = []
        var horizon: Int64?
        /// When the connection's latest exchange ended; `nil` before the first.
        var lastActivity: Int64?
        /// Told the device time after every sleep, before the sleeper carries on.
        var afterSleep: (@Sendable (Int64) -> Void)?
    }

    /// - Parameters:
    ///   - failing: Which exchanges (counting from 0) fail, as a dropped connection would.
    ///   - horizon: Sleeping past this device time throws `CancellationError`, which ends
    ///     `ServerClock.run()` loops after a simulated span.
    ///   - connectionIdleTimeout: When set, the first exchange, and every exchange after the
    ///     connection lay idle this long, opens a connection: its request leaves only after a
    ///     handshake's round trip (one more up and down draw), all of which counts as its up leg.
    ///     When not, the connection is always open, and the world says so
    ///     (``mayOpenConnection`` is `false`), as a streaming socket does.
    init(
        seed: UInt64, delays: DelayModel, rate: Double = 0, steps: [Step] = [], failing: Set<Int> = [], horizon: Duration? = nil,
        connectionIdleTimeout: Duration? = nil
    ) {
        self.delays = delays
        self.rate = rate
        self.steps = steps
        self.connectionIdleTimeout = connectionIdleTimeout
        state = Mutex(State(
            now: Self.start, random: SeededRandom(seed: seed), failures: failing,
            horizon: horizon.map { Self.start + Int64($0.components.seconds) * 1_000_000_000 }
        ))
    }

    /// The server's true time at device time `local`.
    func serverTime(at local: Int64) -> Int64 {
        local + Self.offsetAtBoot + Int64(rate * Double(local)) + steps.filter { $0.at <= local }.map(\.by).reduce(0, +)
    }

    /// How many exchanges the server answered or dropped.
    var exchangeCount: Int { state.withLock { $0.exchanges } }

    /// Lets device time pass.
    func advance(by nanoseconds: Int64) {
        state.withLock { $0.now += nanoseconds }
    }

    /// Calls `observer` with the device time after every sleep, the moments a clock that runs
    /// on this world waits between exchanges: where a test looks at its estimate.
    func observeSleeps(_ observer: @escaping @Sendable (Int64) -> Void) {
        state.withLock { $0.afterSleep = observer }
    }
}

extension SimulatedWorld: MonotonicTimeSource {
    func now() -> Int64 {
        state.withLock { $0.now }
    }

    func sleep(until deadline: Int64) async throws {
        try Task.checkCancellation()
        let (now, observer) = try state.withLock { state in
            if let horizon = state.horizon, deadline > horizon { throw CancellationError() }
            state.now = max(state.now, deadline)
            return (state.now, state.afterSleep)
        }
        observer?(now)
    }
}

extension SimulatedWorld: ClockExchangeTransport {
    struct DroppedConnection: Error {}

    /// Only when the world plays connections that open and close.
    var mayOpenConnection: Bool { connectionIdleTimeout != nil }

    /// Stamps like a server that reads its clock on receipt and again 50 µs later on sending.
    func exchange(t1: Int64) async throws -> ServerStamps {
        try state.withLock { state in
            defer {
                state.exchanges += 1
                state.lastActivity = state.now
            }
            if let idle = connectionIdleTimeout?.nanoseconds,
               state.lastActivity.map({ state.now - $0 > idle }) ?? true {
                let (synUp, synAckDown) = delays.draw(using: &state.random, bursts: &state.bursts)
                state.now += synUp + synAckDown
            }
            let (up, down) = delays.draw(using: &state.random, bursts: &state.bursts)
            state.now += up
            if state.failures.contains(state.exchanges) { throw DroppedConnection() }
            let received = serverTime(at: state.now)
            state.now += 50_000
            let sent = serverTime(at: state.now)
            state.now += down
            return ServerStamps(received: received, sent: sent)
        }
    }
}
