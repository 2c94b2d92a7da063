public import LockstepCore

extension ServerClock {
    /// How often and how hard a ``ServerClock`` talks to the server.
    ///
    /// ```swift
    /// let clock = ServerClock(transport: transport, configuration: .init(resyncInterval: .seconds(60)))
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// The most exchanges in one round (the burst at start, each periodic re-sync, each
        /// ``ServerClock/resync()``). Eight back-to-back exchanges cost one radio wake-up, like
        /// one, and per-round precision is what the drift estimate is made of: with eight, an
        /// hour of rounds measures the rate to about 1 ppm (median) under every delay model.
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
        /// How much history the estimate is built from.
        public var estimator: ClockEstimatorConfiguration

        /// Settings with every default: 8 exchanges a round, stopping at a 50 µs bound, a
        /// round every 5 minutes, 15 seconds after a failure. `exchangesPerRound` must be at
        /// least 1.
        public init(
            exchangesPerRound: Int = 8,
            targetErrorBound: Duration = .microseconds(50),
            resyncInterval: Duration = .seconds(5 * 60),
            retryInterval: Duration = .seconds(15),
            estimator: ClockEstimatorConfiguration = .init()
        ) {
            precondition(exchangesPerRound >= 1, "a round needs an exchange")
            self.exchangesPerRound = exchangesPerRound
            self.targetErrorBound = targetErrorBound
            self.resyncInterval = resyncInterval
            self.retryInterval = retryInterval
            self.estimator = estimator
        }
    }
}
