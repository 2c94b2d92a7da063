public import LockstepCore

extension ServerClock {
    /// How often and how hard a ``ServerClock`` talks to the server.
    ///
    /// ```swift
    /// let clock = ServerClock(transport: transport, configuration: .init(resyncInterval: .seconds(60)))
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// The most exchanges in one round (the burst at start, each periodic re-sync, each
        /// ``ServerClock/resync()``): 16. Back-to-back exchanges cost one radio wake-up however
        /// many they are (16 take about 1.3 s on an 80 ms round trip), and the estimate needs
        /// them: the mean of 8 jittery exchanges cannot get below p99 6.4 ms on a link with
        /// 10 ms of jitter each way, 16 reach 4.6 ms; under queueing 16 halve the error of 8.
        public var exchangesPerRound: Int
        /// A round stops early once the error bound is this small: more exchanges would not
        /// make it noticeably better. 50 µs, because one exchange's bar on loopback is already
        /// under a millisecond while its error is not: the first exchange on a new connection
        /// carries the TCP handshake (measured: stopping at 2 ms gave a 363 µs median error on
        /// loopback, all eight exchanges 7 µs; BENCHMARKS.md).
        public var targetErrorBound: Duration
        /// Time between periodic re-syncs.
        public var resyncInterval: Duration
        /// Time before trying again after a round failed (offline, server down).
        public var retryInterval: Duration
        /// How ``ServerClock/calibrateContinuously()`` spends exchanges while a connection is open.
        public var continuous: ContinuousCalibration
        /// How much history the estimate is built from.
        public var estimator: ClockEstimatorConfiguration

        /// Settings with every default: 16 exchanges a round, stopping at a 50 µs bound, a
        /// round every 5 minutes, 15 seconds after a failure, and the continuous calibration's
        /// defaults. `exchangesPerRound` must be at least 1.
        public init(
            exchangesPerRound: Int = 16,
            targetErrorBound: Duration = .microseconds(50),
            resyncInterval: Duration = .seconds(5 * 60),
            retryInterval: Duration = .seconds(15),
            continuous: ContinuousCalibration = .init(),
            estimator: ClockEstimatorConfiguration = .init()
        ) {
            precondition(exchangesPerRound >= 1, "a round needs an exchange")
            self.exchangesPerRound = exchangesPerRound
            self.targetErrorBound = targetErrorBound
            self.resyncInterval = resyncInterval
            self.retryInterval = retryInterval
            self.continuous = continuous
            self.estimator = estimator
        }
    }
}
