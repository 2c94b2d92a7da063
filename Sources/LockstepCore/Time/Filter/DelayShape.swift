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
struct DelayShape {
    /// The delays, smallest first (relative values: any common shift gives the same shape).
    let sorted: [Double]

    init(_ delays: [Double]) {
        sorted = delays.sorted()
    }

    /// The floor under the delays, were they a floor plus an exponential wait: the fastest trip
    /// less the expected gap between floor and fastest of `n` trips, `λ / n`.
    ///
    /// The wait's scale `λ` is the mean of the normalised spacings `(n − j)(x₍ⱼ₊₁₎ − x₍ⱼ₎)`, which
    /// for exponential waits are independent draws of the wait itself (Rényi); the widest
    /// spacing is left out, so that one stray trip (a first exchange that carries a TCP
    /// handshake) cannot move the floor.
    var floor: Double {
        let n = sorted.count
        guard n >= 4 else { return sorted.first ?? 0 }
        let spacings = (0..<(n - 2)).map { j in Double(n - 1 - j) * (sorted[j + 1] - sorted[j]) }
        let scale = spacings.reduce(0, +) / Double(spacings.count)
        return sorted[0] - scale / Double(n)
    }

    /// How much better a floor plus an exponential wait explains the delays than a normal
    /// distribution does: the difference of the two fitted log-likelihoods, per delay. Near 0
    /// or below for jitter, about 0.35 on average for queueing; 0 when the delays are all equal.
    var queueingEvidence: Double {
        let n = Double(sorted.count)
        guard n >= 2, let fastest = sorted.first else { return 0 }
        let mean = sorted.reduce(0, +) / n
        let variance = sorted.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / n
        let wait = mean - fastest
        guard wait > 0, variance > 0 else { return 0 }
        // Maximum-likelihood fits: exponential (floor = fastest, scale = mean wait) against
        // normal (mean, variance), each log-likelihood per delay.
        let exponential = -log(wait) - 1
        let normal = -0.5 * log(2 * .pi * variance) - 0.5
        return exponential - normal
    }
}
