/// Measures the drift between the two clocks from the offsets of many rounds of exchanges.
///
/// Each round (a burst of exchanges within a second or so, or a minute of continuous
/// exchanges) yields an offset at one local instant, with a hard bound and a statistical
/// uncertainty. Over a long run these trace a line whose slope is the rate:
///
/// - The rate *bound* comes from the rounds' error bounds, which every line through the true
///   offsets must cross: two rounds Δt apart limit the slope to
///   `(lower₂ − upper₁) / Δt ... (upper₂ − lower₁) / Δt`. All pairs together give the range of
///   rates consistent with every round, intersected with the configured tolerance; the bound is
///   the distance from the estimate to the farther end of that range.
/// - The rate *estimate* is the weighted least-squares slope of the rounds' offsets against
///   local time, each round weighted by its precision (its uncertainty taken as 2.81 standard
///   errors, never less than 1 µs), once the rounds span
///   ``ClockEstimatorConfiguration/minimumDriftSpan``. The slope's standard error grows with
///   the rounds' scatter when that exceeds what their uncertainties claim (Birge's ratio,
///   from three rounds up), and the slope is weighed against what is known before any round
///   (a rate around 0 whose standard deviation is a third of the tolerance): over a few minutes of
///   jittery rounds the slope is mostly noise and stays near 0, with an uncertainty near the
///   tolerance; after an hour of rounds it is the data's alone. The estimate is then kept
///   inside the consistent range.
/// - The rate's *uncertainty* is 3.29 standard errors of that weighed slope (99.9 %), plus how
///   far keeping it in range moved it, and never more than the bound.
enum DriftEstimator {
    /// The drift the rounds imply, or `nil` when no constant rate within the configured tolerance
    /// fits them all (a clock stepped, or the tolerance is too tight for this device).
    static func drift(from rounds: [ClockEstimate], configuration: ClockEstimatorConfiguration) -> ClockDrift? {
        let tolerance = configuration.frequencyTolerance
        guard let range = consistentRates(of: rounds, tolerance: tolerance) else { return nil }
        let measured = measuredRate(of: rounds, minimumSpan: configuration.minimumDriftSpan.nanoseconds, tolerance: tolerance)
        let rate = min(max(measured?.rate ?? 0, range.lowerBound), range.upperBound)
        let bound = max(rate - range.lowerBound, range.upperBound - rate)
        let uncertainty = measured.map { $0.uncertainty + abs(rate - $0.rate) } ?? bound
        return ClockDrift(rate: rate, rateBound: bound, rateUncertainty: uncertainty)
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

    /// The weighted least-squares rate, weighed against the tolerance, with its uncertainty,
    /// once the rounds span long enough to measure one.
    private static func measuredRate(
        of rounds: [ClockEstimate], minimumSpan: Int64, tolerance: Double
    ) -> (rate: Double, uncertainty: Double)? {
        guard let first = rounds.first, let last = rounds.last, last.anchor - first.anchor >= minimumSpan,
              let fit = weightedLine(
                  rounds.map { Double($0.anchor - first.anchor) },
                  rounds.map { Double($0.offset - first.offset) },
                  deviations: rounds.map { max(Double($0.uncertainty), 1_000) / 2.81 })
        else { return nil }
        let priorDeviation = tolerance / 3
        let precision = 1 / fit.slopeVariance + 1 / (priorDeviation * priorDeviation)
        return (fit.slope / fit.slopeVariance / precision, 3.29 / precision.squareRoot())
    }
}
