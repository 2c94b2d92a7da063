import Foundation

/// What a window of one-way delays (known up to a constant) says about how the network
/// delays packets in that direction.
///
/// The server's two stamps split each exchange in two, so each direction's delays are
/// observed up to one unknown constant (plus the offset going up, minus it coming down):
/// their *shape* is visible even though the offset is not. Two shapes matter:
///
/// - a floor plus an exponential wait (queueing), whose floor sits a little below the fastest
///   trip seen: ``floor`` corrects the minimum by the expected gap;
/// - a bell around a mean (jitter), which ``queueingEvidence`` tells apart by likelihood.
///
/// Everything is worked out once, when made: the filter asks for each figure more than once,
/// for hundreds of delays an exchange.
struct DelayShape {
    /// How many delays there are.
    let count: Int
    /// The exponential wait's scale `λ`, estimated as ``floor`` says (0 for fewer than 4 delays).
    ///
    /// Were the delays exactly a floor plus exponential waits, the fastest trip's distance above
    /// the floor would be an exponential draw of scale `λ / n`: so `λ / n` is the standard error
    /// of ``floor``, and what `OffsetFilter` builds the floors' uncertainty from.
    let scale: Double
    /// The floor under the delays, were they a floor plus an exponential wait: the fastest trip
    /// less the expected gap between floor and fastest of `n` trips, `λ / n`.
    ///
    /// The wait's scale `λ` is the mean of the normalised spacings `(n − j)(x₍ⱼ₊₁₎ − x₍ⱼ₎)`, which
    /// for exponential waits are independent draws of the wait itself (Rényi); the widest
    /// spacing is left out, so that one stray trip (a first exchange that carries a TCP
    /// handshake) cannot move the floor.
    let floor: Double
    /// How much better a floor plus an exponential wait explains the delays than a normal
    /// distribution does: the difference of the two fitted log-likelihoods, per delay. Near 0
    /// or below for jitter, about 0.35 on average for queueing; 0 when the delays are all equal.
    let queueingEvidence: Double

    /// The shape of `delays` (relative values: any common shift gives the same shape).
    init(_ delays: [Double]) {
        let sorted = delays.sorted()
        let n = sorted.count
        count = n
        var scale = 0.0
        if n >= 4 {
            for j in 0..<(n - 2) { scale += Double(n - 1 - j) * (sorted[j + 1] - sorted[j]) }
            scale /= Double(n - 2)
        }
        self.scale = scale
        floor = n >= 4 ? sorted[0] - scale / Double(n) : sorted.first ?? 0
        queueingEvidence = Self.evidence(sorted)
    }

    private static func evidence(_ sorted: [Double]) -> Double {
        let n = Double(sorted.count)
        guard n >= 2, let fastest = sorted.first else { return 0 }
        var sum = 0.0
        for delay in sorted { sum += delay }
        let mean = sum / n
        var squares = 0.0
        for delay in sorted { squares += (delay - mean) * (delay - mean) }
        let variance = squares / n
        let wait = mean - fastest
        guard wait > 0, variance > 0 else { return 0 }
        // Maximum-likelihood fits: exponential (floor = fastest, scale = mean wait) against
        // normal (mean, variance), each log-likelihood per delay.
        let exponential = -log(wait) - 1
        let normal = -0.5 * log(2 * .pi * variance) - 0.5
        return exponential - normal
    }
}
