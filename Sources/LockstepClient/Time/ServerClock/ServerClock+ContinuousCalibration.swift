extension ServerClock {
    /// The budget of ``ServerClock/calibrateContinuously()``: how many exchanges a minute it may
    /// make, and when it slows down.
    ///
    /// Over an open streaming socket an exchange is one small frame each way (`t:`), on a
    /// connection the app keeps open anyway. The clock spends the full budget while its
    /// uncertainty is above ``targetUncertainty`` (two exchanges a second, by default), and
    /// ``settledExchangesPerMinute`` once below (one every ten seconds): enough to follow the
    /// drift and notice a clock step. It makes none while the app is in the background
    /// (``ServerClock/applicationState``).
    ///
    /// ```swift
    /// // At most one exchange a second, settling for one a minute below 5 ms.
    /// let calm = ServerClock.ContinuousCalibration(
    ///     exchangesPerMinute: 60, settledExchangesPerMinute: 1, targetUncertainty: .milliseconds(5))
    /// ```
    public struct ContinuousCalibration: Sendable, Hashable {
        /// The most exchanges a minute, while the uncertainty is above the target: 120 (one every
        /// half second). On a link with 10 ms of jitter each way, a minute of them takes the
        /// estimate from p99 4.6 ms to under 2 ms. 0 turns continuous calibration off.
        public var exchangesPerMinute: Int
        /// Exchanges a minute once the uncertainty is at or below the target: 6.
        public var settledExchangesPerMinute: Int
        /// The uncertainty below which the clock settles: 2 ms. On a jittery link it takes a few
        /// minutes to get there (the drift must be measured first); on a quiet one, seconds.
        public var targetUncertainty: Duration
        /// How long continuous exchanges gather before they close a round, one point of the
        /// drift's history: a minute, so that the drift's 64 rounds span an hour.
        public var roundDuration: Duration

        /// The budget; the counts must not be negative, and the round must last.
        public init(
            exchangesPerMinute: Int = 120,
            settledExchangesPerMinute: Int = 6,
            targetUncertainty: Duration = .milliseconds(2),
            roundDuration: Duration = .seconds(60)
        ) {
            precondition(exchangesPerMinute >= 0 && settledExchangesPerMinute >= 0, "exchange counts cannot be negative")
            precondition(roundDuration > .zero, "a round must last")
            self.exchangesPerMinute = exchangesPerMinute
            self.settledExchangesPerMinute = settledExchangesPerMinute
            self.targetUncertainty = targetUncertainty
            self.roundDuration = roundDuration
        }

        /// Nanoseconds between exchanges at `perMinute` exchanges a minute; `nil` for none.
        func interval(perMinute: Int) -> Int64? {
            perMinute > 0 ? 60_000_000_000 / Int64(perMinute) : nil
        }
    }
}
