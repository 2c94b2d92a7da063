/// Paces the messages of one streaming connection: a token bucket that refills at `rate`
/// messages per second and holds up to `burst`.
///
/// A connection over its rate is not refused but read more slowly: each message beyond the
/// budget waits its turn. Nothing a client sent is lost, every reply still comes, and TCP
/// back-pressure slows a flooding client down without costing the server more than its rate.
struct MessageRateLimiter {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var refilledAt: ContinuousClock.Instant

    /// A limiter for `rate` messages per second with a burst of twice as many; a rate of 0 or
    /// less turns it off.
    init(messagesPerSecond rate: Double, now: ContinuousClock.Instant = .now) {
        self.rate = rate
        self.burst = max(1, 2 * rate)
        self.tokens = burst
        self.refilledAt = now
    }

    /// Takes a token for one message and says how long to wait before handling it.
    mutating func delay(now: ContinuousClock.Instant = .now) -> Duration {
        guard rate > 0 else { return .zero }
        let elapsed = now - refilledAt
        refilledAt = now
        tokens = min(burst, tokens + elapsed / .seconds(1) * rate)
        tokens -= 1
        return tokens >= 0 ? .zero : .seconds(-tokens / rate)
    }
}
