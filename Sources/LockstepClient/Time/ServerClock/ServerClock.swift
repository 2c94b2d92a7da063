import Foundation
public import LockstepCore
public import Logging
import Synchronization

/// The server's time, on this device, without trusting the device's clock.
///
/// The clock exchanges timestamps with the server in rounds (a burst at start, again on every
/// periodic re-sync, and on ``resync()`` after a reconnect), and, while a connection stays
/// open, a few at a time in the background (``calibrateContinuously()``); it measures them on
/// a monotonic clock that counts through sleep, and answers ``now()`` from the estimate, with
/// an error bound that holds, growing slowly while offline, and an uncertainty that shrinks as
/// the exchanges accumulate. The device's wall clock is never read, so a user changing the
/// date changes nothing.
///
/// Calibration, the measured drift included, survives app restarts through a
/// ``ClockCalibrationStore`` and is dropped after a reboot (the monotonic clock restarts), in
/// which case ``now()`` is `nil` until the first exchange succeeds, or after a clock step.
///
/// ```swift
/// let clock = ServerClock(transport: HTTPClockExchangeTransport(serverURL: server))
/// Task { try await clock.run() }          // keeps it calibrated until cancelled
/// if let time = clock.now() { print(time) } // 2025-06-01T07:00:00.123Z ± 4.6 ms (bound 21.0 ms)
/// ```
///
/// A ``LockstepClient`` runs one already, ``LockstepClient/clock``: make one of your own only
/// to read a server's time without a store. See <doc:ReadingTheServerClock>.
public final class ServerClock: Sendable {
    let transport: any ClockExchangeTransport
    let timeSource: any MonotonicTimeSource
    let configuration: Configuration
    let persistence: (store: any ClockCalibrationStore, bootIdentity: String)?
    let logger: Logger
    let state: Mutex<State>
    /// Signalled whenever ``applicationState`` changes, for the continuous calibration to wake.
    let applicationStateChanged = Wakeup()
    /// The observers ``followApplicationNotifications()`` registered, removed when the clock goes.
    let notificationObservers = Mutex<[any NSObjectProtocol]>([])

    struct State {
        var estimator: ClockEstimator
        /// The round being exchanged, which concurrent callers join rather than duplicate.
        var round: Task<Void, any Error>?
        /// Whether the app is in the foreground: the continuous calibration pauses while not.
        var applicationState = ApplicationState.foreground
        /// When the continuous calibration last made an exchange (local time): until a re-sync
        /// interval has passed since, periodic rounds are not needed.
        var lastContinuousExchange: Int64?
        /// When the open round's first continuous exchange was made, if it has one.
        var continuousRoundStart: Int64?
    }

    /// A clock that reaches the server through `transport`, uncalibrated until its first
    /// exchange (or calibrated at once from `store`, if it holds a calibration of this boot).
    ///
    /// Nothing is exchanged until ``run()`` or ``resync()``.
    ///
    /// - Parameters:
    ///   - transport: How to reach the server's clock.
    ///   - timeSource: The local monotonic clock; tests inject a simulated one.
    ///   - configuration: How often and how hard to talk to the server.
    ///   - store: Where to keep the calibration across launches; `nil` keeps it in memory.
    ///     A calibration that cannot be read is ignored (and logged), never thrown.
    ///   - bootIdentity: Tells boots apart, so a calibration never outlives its boot. When it
    ///     cannot tell, nothing is kept.
    ///   - logger: Where failed exchanges and unreadable calibrations are logged.
    public init(
        transport: any ClockExchangeTransport,
        timeSource: any MonotonicTimeSource = ContinuousTimeSource(),
        configuration: Configuration = .init(),
        store: (any ClockCalibrationStore)? = nil,
        bootIdentity: any BootIdentitySource = SystemBootIdentity(),
        logger: Logger = Logger(label: "lockstep.server-clock")
    ) {
        self.transport = transport
        self.timeSource = timeSource
        self.configuration = configuration
        self.logger = logger
        let persistence = Self.persistence(store: store, bootIdentity: bootIdentity, logger: logger)
        self.persistence = persistence
        let restored = persistence.flatMap {
            Self.restoredHistory(from: $0.store, boot: $0.bootIdentity, logger: logger)
        }
        let estimator = ClockEstimator(configuration: configuration.estimator, history: restored ?? ClockHistory())
        self.state = Mutex(State(estimator: estimator))
    }

    // MARK: Reading the server's time

    /// The server's time now, or `nil` if the clock was never calibrated in this boot.
    ///
    /// ```swift
    /// if let now = clock.now() {
    ///     print(now.date, now.errorBound)     // the true time lies within errorBound of date
    /// }
    /// ```
    ///
    /// Cheap: it reads the monotonic clock and applies the estimate, with no I/O.
    public func now() -> ServerTime? {
        serverTime(at: timeSource.now())
    }

    /// The server's time at `localInstant` (a reading of the time source, past or future).
    public func serverTime(at localInstant: Int64) -> ServerTime? {
        estimate?.serverTime(at: localInstant)
    }

    /// The reading of the time source at which the server's clock will show (or showed)
    /// `serverTime` nanoseconds since the epoch.
    public func localInstant(atServerTime serverTime: Int64) -> Int64? {
        estimate?.localInstant(atServerTime: serverTime)
    }

    /// The `ContinuousClock` deadline at which the server's clock shows `serverTime`, for
    /// `Task.sleep(until:)` and other APIs that take a clock's instant.
    public func deadline(forServerTime serverTime: Int64) -> ContinuousClock.Instant? {
        guard let local = localInstant(atServerTime: serverTime) else { return nil }
        return ContinuousClock.now.advanced(by: .nanoseconds(local - timeSource.now()))
    }

    /// Suspends until the server's clock shows `serverTime` by the best estimate. A long sleep
    /// follows the estimate as re-syncs refine it, waking again if it woke too early.
    ///
    /// ```swift
    /// try await clock.sleep(untilServerTime: showing.start * 1_000_000)   // ms to ns
    /// ```
    ///
    /// - Throws: ``ServerClockError/uncalibrated`` before the first exchange, and
    ///   `CancellationError` when the task is cancelled.
    public func sleep(untilServerTime serverTime: Int64) async throws {
        while true {
            guard let local = localInstant(atServerTime: serverTime) else { throw ServerClockError.uncalibrated }
            guard timeSource.now() < local else { return }
            try await timeSource.sleep(until: local)
        }
    }

    /// The estimate behind the answers above: offset, drift and their bounds.
    public var estimate: ClockEstimate? {
        state.withLock { $0.estimator.estimate }
    }

    /// The exchanges the estimate is built from, oldest first: the most recent
    /// `ClockEstimatorConfiguration.sampleWindow` of them (`LockstepCore`), for diagnostics
    /// (`lockstep time`).
    public var samples: [ClockSample] {
        state.withLock { $0.estimator.history.samples }
    }

    // MARK: Synchronising

    /// Exchanges a round with the server now, for instance after reconnecting; joins the round
    /// already under way if there is one. Throws if no exchange of the round succeeded.
    /// Cancelling the caller cancels the round, for everyone waiting on it.
    public func resync() async throws {
        let round = state.withLock { state in
            if let running = state.round { return running }
            let started = Task { try await self.exchangeRound() }
            state.round = started
            return started
        }
        defer { state.withLock { if $0.round == round { $0.round = nil } } }
        try await withTaskCancellationHandler {
            try await round.value
        } onCancel: {
            round.cancel()
        }
    }

    /// Keeps the clock calibrated until cancelled: a round now, then one every
    /// ``Configuration/resyncInterval``, retrying sooner after a failure. While
    /// ``calibrateContinuously()`` is exchanging, the periodic rounds wait: they would add
    /// nothing.
    ///
    /// ```swift
    /// let calibrating = Task { try await clock.run() }
    /// // …
    /// calibrating.cancel()
    /// ```
    ///
    /// Failed rounds are logged, not thrown: it throws only `CancellationError`, when cancelled.
    public func run() async throws {
        var next = timeSource.now()
        while true {
            try await timeSource.sleep(until: next)
            if let continuous = state.withLock({ $0.lastContinuousExchange }),
               timeSource.now() - continuous < configuration.resyncInterval.nanoseconds {
                next = continuous + configuration.resyncInterval.nanoseconds
                continue
            }
            do {
                try await resync()
                next = timeSource.now() + configuration.resyncInterval.nanoseconds
            } catch {
                try Task.checkCancellation()
                logger.warning("clock exchange failed; retrying", metadata: ["error": "\(error)"])
                next = timeSource.now() + configuration.retryInterval.nanoseconds
            }
        }
    }

    /// Up to ``Configuration/exchangesPerRound`` exchanges, stopping once the bound is tight or
    /// at the first failure (the network rarely recovers within milliseconds); the samples
    /// taken so far still count. The first exchange over a connection that may be new only
    /// bounds the offset (see ``ClockSample/opensConnection``).
    private func exchangeRound() async throws {
        defer { completeRound() }
        let target = configuration.targetErrorBound.nanoseconds
        let mayOpenConnection = transport.mayOpenConnection
        for index in 0..<configuration.exchangesPerRound {
            var sample: ClockSample
            do {
                sample = try await transport.sample(stampingWith: timeSource)
                sample.opensConnection = index == 0 && mayOpenConnection
            } catch {
                if index == 0 { throw error }
                logger.debug("clock exchange failed mid-round", metadata: ["error": "\(error)"])
                return
            }
            let (accepted, bound) = state.withLock { state in
                (state.estimator.record(sample), state.estimator.estimate?.errorBound)
            }
            if !accepted {
                logger.warning("implausible clock sample ignored", metadata: ["sample": "\(sample)"])
            }
            if let bound, bound <= target { return }
        }
    }

    func completeRound() {
        let history: ClockHistory? = state.withLock { state in
            state.continuousRoundStart = nil
            guard !state.estimator.history.openRound.isEmpty else { return nil }
            state.estimator.completeRound()
            return state.estimator.history
        }
        if let history { save(history) }
    }

    deinit {
        for observer in notificationObservers.withLock({ $0 }) { NotificationCenter.default.removeObserver(observer) }
    }
}
