import Synchronization

/// Token buckets keyed by who is asking: each key may spend `ratePerSecond` on average and
/// `burst` at once. Used for HTTP requests and streaming messages.
public final class RateLimiter: Sendable {
    public let ratePerSecond: Double
    public let burst: Double

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    private let clock = ContinuousClock()

    public init(ratePerSecond: Double, burst: Double? = nil) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst ?? max(1, ratePerSecond * 2)
    }

    /// Spends one token of `key`'s bucket; `false` when it is empty and the caller must refuse.
    public func allow(_ key: String) -> Bool {
        guard ratePerSecond > 0 else { return true }
        let now = clock.now
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - bucket.updated
            bucket.tokens = min(burst, bucket.tokens + ratePerSecond * Double(elapsed.components.seconds) + ratePerSecond * Double(elapsed.components.attoseconds) / 1e18)
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            buckets[key] = bucket
            if buckets.count > 100_000 { Self.forgetFull(&buckets, now: now, refill: burst / ratePerSecond) }
            return allowed
        }
    }

    /// Drops buckets that have refilled completely: they hold no information.
    private static func forgetFull(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant, refill: Double) {
        buckets = buckets.filter { now - $0.value.updated < .seconds(refill) }
    }
}
