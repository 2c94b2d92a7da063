/// Combines a window of samples into one offset, a bound on its error that always holds, and
/// the tighter uncertainty the samples' statistics give.
///
/// Every sample bounds the offset (see ``ClockSample``), so the true offset lies in the
/// intersection of all their bounds; the estimate is kept inside it, and its bound is the
/// distance to the intersection's farther end. Inside it, two estimates compete, and which one
/// wins depends on how the network delays packets:
///
/// - *Queueing* delay (a fixed floor plus a long tail, often asymmetric: the mobile and
///   bufferbloat case). Each direction's floor is found from its fastest trips, corrected for
///   the gap expected between floor and fastest (see ``DelayShape/floor``), and the offset is
///   the one that puts both floors level. A mean would be biased by tens of milliseconds by a
///   one-sided tail.
/// - *Jitter* (delays scattered symmetrically around a mean, no floor in reach). A sample's
///   error (up − down)/2 is then independent of its round trip, no sample is better than
///   another, and the mean of all offsets is best: it uses what every sample says.
///
/// The server's stamps split every exchange into its two legs, each known up to the offset, so
/// the samples themselves show which case holds: how much better "floor plus exponential wait"
/// fits each direction's delays than a normal distribution (``DelayShape/queueingEvidence``),
/// plus how strongly offsets move with round trips (`corr(θ, δ)²`, near 1 when one direction
/// queues far more than the other: the case where the mean is most wrong, and about 1/7 for
/// eight samples of symmetric jitter). The evidence sets the blend between the two estimates.
///
/// ## The algorithm, step by step
///
/// All in integer nanoseconds until step 4, then in `Double` relative to the midpoint `m`:
///
/// 1. Project every sample to `anchor` (``ProjectedSample``): its bounds `[t3 − t4, t2 − t1]`
///    move by `rate × (anchor − localMidpoint)` and widen on each side by the drift's
///    `rateBound` times the distance travelled plus half the exchange's span, plus
///    `|rate| × halfSpan` and 2 ns of rounding. The *likely* bounds widen the same way by the
///    drift's `rateUncertainty` instead (by `s`, the sample's likely widening).
/// 2. Intersect the projected bounds: `[L, H]`; none means a clock stepped (`nil`). `m` is
///    the midpoint of `[L, H]`, rounded down.
/// 3. The *typical* samples are those that did not open their connection (all of them if
///    none is typical). Per typical sample: its offset `θ = midpoint − m`; its up delay
///    `likelyUpper − m`. Per sample (all of them): its down delay `m − likelyLower`.
/// 4. `level = (up.floor − down.floor) / 2` (``DelayShape/floor``).
/// 5. Weights for the mean: `1 / (h + s)²`, `h` the typical samples' mean half round trip:
///    samples of one burst count alike, older ones fade as the drift's uncertainty blurs them.
///    `mean = Σ wθ / Σ w`.
/// 6. The floors' weight `f`: 1 with fewer than 4 typical samples; otherwise from the evidence
///    `e = up.queueingEvidence + down.queueingEvidence + corr(θ, δ)²` (δ the typical samples'
///    round trips; a constant series correlates 0): `f = clamp((e − 0.4) / 0.4, 0, 1)`.
/// 7. The offset is `m + round(f × level + (1 − f) × mean)`, clamped to `[L, H]`; its bound is
///    the distance to the farther end of `[L, H]`.
/// 8. Its uncertainty (``OffsetUncertainty``): rounded up, and never more than the bound.
///
/// Measured on a simulation of bursts of 8 exchanges (delays drawn as below, no drift; 10,000
/// trials, median / p99 |error| in ms), beside the filter it replaced (the intersection's
/// midpoint blended with the mean by the correlation of round trip and distance from the
/// midpoint); BENCHMARKS.md has the same through real sockets:
///
/// | delay model                          | this filter  | previous     | mean of 8    |
/// |--------------------------------------|--------------|--------------|--------------|
/// | jitter N(40, 20) each way            | 3.0 / 14.6   | 3.6 / 16.0   | 2.8 / 12.4   |
/// | jitter N(40, 10) each way            | 1.8 / 7.9    | 2.2 / 10.7   | 1.7 / 6.5    |
/// | queueing 20 + Exp(20) each way       | 1.2 / 7.3    | 1.0 / 6.4    | 3.2 / 13.4   |
/// | bufferbloat 20 + Exp(5) / Exp(40)    | 1.6 / 9.5    | 1.4 / 11.0   | 16.6 / 31.7  |
///
/// Eight samples are too few to tell jitter from queueing every time, and the filter errs
/// towards the floors: wrongly used, the mean costs far more under queueing (p99 32 ms) than
/// the floors cost under jitter (p99 18 ms). Sixteen tell them apart nearly always: the mean
/// of 16 is what the filter gives under jitter (N(40, 10): p99 4.6 ms, against the floor of
/// any estimator, 2.58 σ/√(2n) = 4.6 ms), and the floors halve their error under queueing
/// (bufferbloat p99 4.6 ms), which is why a round makes 16 exchanges
/// (`ServerClock.Configuration`).
///
/// A sample that may have opened its connection (``ClockSample/opensConnection``) bounds the
/// offset like any other and lends its down leg to the down direction's shape; its up leg,
/// which carries the handshake, and its θ are left out. Counted, a new HTTP connection's
/// first exchange (θ off by half a round trip) takes the jitter case's p99 from 8.9 to 11.7 ms.
enum OffsetFilter {
    /// Below this evidence the delay looks like jitter and the mean gets full weight.
    static let jitterEvidence = 0.4
    /// From this evidence up the delay looks like queueing and the floors get full weight.
    static let queueingEvidence = 0.8

    /// The estimate at local instant `anchor` from `samples`, or `nil` when their bounds do not
    /// intersect (the server's clock stepped, or the drift exceeded its bound).
    static func estimate(from samples: [ClockSample], at anchor: Int64, drift: ClockDrift) -> ClockEstimate? {
        let all = samples.map { ProjectedSample($0, at: anchor, drift: drift) }
        guard let bounds = intersection(of: all) else { return nil }
        let midpoint = bounds.midpoint
        // Every sample bounds the offset. A sample that opened its connection carried the
        // handshake on its up leg: its down leg is still the link's, but its up leg and its θ
        // say nothing about where in the bounds the offset lies (unless no sample says more).
        let typical = all.filter(\.upLegIsTypical)
        let projected = typical.isEmpty ? all : typical
        // Work in `Double` only relative to the midpoint, where values are small. A sample's
        // upper bound is the offset plus its up-leg delay, its lower bound the offset less its
        // down-leg delay: each leg's delays, up to the offset.
        let offsets = projected.map { Double($0.offset - midpoint) }
        let up = DelayShape(projected.map { Double($0.likelyBounds.upperBound - midpoint) })
        let down = DelayShape(all.map { Double(midpoint - $0.likelyBounds.lowerBound) })
        let level = (up.floor - down.floor) / 2
        let weights = ageWeights(of: projected)
        let mean = weightedMean(offsets, weights: weights)
        let weight = floorWeight(up: up, down: down, offsets: offsets, roundTrips: projected.map { Double($0.roundTrip) })
        let blended = midpoint + Int64(saturating: (weight * level + (1 - weight) * mean).rounded())
        let offset = min(max(blended, bounds.lowerBound), bounds.upperBound)
        let errorBound = max(offset - bounds.lowerBound, bounds.upperBound - offset)
        let spread = OffsetUncertainty(
            offsets: offsets, weights: weights, mean: mean, level: level, up: up, down: down, floorWeight: weight,
            widenings: projected.map { Double($0.likelyWidening) })
        return ClockEstimate(
            anchor: anchor,
            offset: offset,
            errorBound: errorBound,
            uncertainty: spread.nanoseconds.map { min($0, errorBound) } ?? errorBound,
            drift: drift
        )
    }

    private static func intersection(of samples: [ProjectedSample]) -> ClosedRange<Int64>? {
        guard var lower = samples.first?.bounds.lowerBound, var upper = samples.first?.bounds.upperBound else { return nil }
        for sample in samples {
            lower = max(lower, sample.bounds.lowerBound)
            upper = min(upper, sample.bounds.upperBound)
        }
        return lower <= upper ? lower...upper : nil
    }

    /// Samples blurred by the drift's uncertainty count less in the mean, so that old samples
    /// fade as they become vague; samples of one burst, equally fresh, count the same whatever
    /// their round trip (under jitter a short trip is no better than a long one).
    private static func ageWeights(of samples: [ProjectedSample]) -> [Double] {
        var halfTrips = 0.0
        for sample in samples { halfTrips += Double(sample.roundTrip) / 2 }
        let typicalHalfTrip = halfTrips / Double(samples.count)
        return samples.map { sample in
            let spread = typicalHalfTrip + Double(sample.likelyWidening)
            return spread > 0 ? 1 / (spread * spread) : 1
        }
    }

    private static func weightedMean(_ values: [Double], weights: [Double]) -> Double {
        var total = 0.0, sum = 0.0
        for index in values.indices {
            total += weights[index]
            sum += weights[index] * values[index]
        }
        return sum / total
    }

    /// How much to trust the floors over the mean, from 0 to 1. Fewer than four samples carry
    /// too little evidence of jitter: trust the floors, which are then the intersection's
    /// midpoint, the best any single exchange can offer.
    private static func floorWeight(up: DelayShape, down: DelayShape, offsets: [Double], roundTrips: [Double]) -> Double {
        guard offsets.count >= 4 else { return 1 }
        let coupling = pearsonCorrelation(offsets, roundTrips).map { $0 * $0 } ?? 0
        let evidence = up.queueingEvidence + down.queueingEvidence + coupling
        let position = (evidence - jitterEvidence) / (queueingEvidence - jitterEvidence)
        return min(max(position, 0), 1)
    }
}
