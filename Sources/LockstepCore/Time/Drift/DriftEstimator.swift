/// Measures the drift between the two clocks from the offsets of many rounds of exchanges.
///
/// Each round (a burst of exchanges within a second or so) yields an offset and a hard bound
/// at one local instant. Over a long run these trace a line whose slope is the rate:
///
/// - The rate *estimate* is the least-squares slope of the rounds' offsets against local time.
///   It is only used once the rounds span ``ClockEstimatorConfiguration/minimumDriftSpan``:
///   over minutes, a few milliseconds of noise would read as tens of ppm.
/// - The rate *bound* comes from the rounds' error bounds, which every line through the true
///   offsets must cross: two rounds Δt apart limit the slope to
///   `(lower₂ − upper₁) / Δt ... (upper₂ − lower₁) / Δt`. All pairs together give the range of
///   rates consistent with every round, intersected with the configured tolerance; the bound is
///   the distance from the estimate to the farther end of that range.
enum DriftEstimator {
    /// The drift the rounds imply, or `nil` when no constant rate within the configured tolerance
    /// fits them all (a clock stepped, or the tolerance is too tight for this device).
    static func drift(from rounds: [ClockEstimate], configuration: ClockEstimatorConfiguration) -> ClockDrift? {
        guard let range = consistentRates(of: rounds, tolerance: configuration.frequencyTolerance) else { return nil }
        let measured = measuredRate(of: rounds, minimumSpan: configuration.minimumDriftSpan.nanoseconds)
        let rate = min(max(measured ?? 0, range.lowerBound), range.upperBound)
        return ClockDrift(rate: rate, rateBound: max(rate - range.lowerBound, range.upperBound - rate))
    }

    /// The rates that keep every round's offset within its bound, if any.
    private static func consistentRates(of rounds: [ClockEstimate], tolerance: Double) -> ClosedRange<Double>? {
        var lowest = -tolerance, highest = tolerance
        for (index, earlier) in rounds.enumerated() {
            for later in rounds[(index + 1)...] {
                let elapsed = later.anchor - earlier.anchor
                let closest = (later.offset - later.errorBound) - (earlier.offset + earlier.errorBound)
                let farthest = (later.offset + later.errorBound) - (earlier.offset - earlier.errorBound)
                guard elapsed != 0 else {
                    // Simultaneous rounds constrain no rate, but their bounds must overlap.
                    guard closest <= 0, farthest >= 0 else { return nil }
                    continue
                }
                let (slow, fast) = (Double(closest) / Double(elapsed), Double(farthest) / Double(elapsed))
                lowest = max(lowest, min(slow, fast))
                highest = min(highest, max(slow, fast))
            }
        }
        return lowest <= highest ? lowest...highest : nil
    }

    /// The least-squares rate, once the rounds span long enough to measure one.
    private static func measuredRate(of rounds: [ClockEstimate], minimumSpan: Int64) -> Double? {
        guard let first = rounds.first, let last = rounds.last, last.anchor - first.anchor >= minimumSpan else {
            return nil
        }
        return leastSquaresSlope(
            rounds.map { Double($0.anchor - first.anchor) },
            rounds.map { Double($0.offset - first.offset) }
        )
    }
}
