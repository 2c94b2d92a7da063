/// When a failed delivery is tried again, and when it is given up on.
struct WebhookRetryPolicy: Sendable {
    let limits: WebhookLimits

    /// The wait after the `failures`-th failed attempt: ``WebhookLimits/retryBaseSeconds``
    /// doubled for each failure before it, at most ``WebhookLimits/retryMaximumSeconds``, less
    /// up to half of it at random (`random` in 0…1), so that many deliveries that failed
    /// together (an endpoint down) do not all come back at the same moment.
    func delaySeconds(afterFailures failures: Int, random: Double) -> Double {
        let doublings = Double(min(max(failures - 1, 0), 60))
        let full = min(limits.retryMaximumSeconds, limits.retryBaseSeconds * pow2(doublings))
        return full * (1 - 0.5 * random)
    }

    /// Whether a delivery whose first attempt was at `firstAttempt` is given up on after
    /// failing at `now`: once the retry period has passed since its first attempt.
    func givesUp(firstAttempt: Int64, now: Int64) -> Bool {
        Double(now - firstAttempt) >= limits.retryPeriodSeconds * 1e9
    }

    private func pow2(_ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(exponent) { result *= 2 }
        return result
    }
}
