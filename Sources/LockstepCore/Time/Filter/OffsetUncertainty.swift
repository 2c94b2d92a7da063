/// The statistical bar of `OffsetFilter`'s estimate: how far from the truth the blend of the
/// mean and the floors can be, read from the samples themselves.
///
/// The bound (the intersection of the samples' bounds) holds whatever the network does, but
/// it is set by the fastest trips each way, so it stops shrinking long before the estimate
/// stops improving: after a minute of exchanges on a jittery link the estimate is within 2 ms
/// and the bound still 20 ms. This bar follows the estimate instead. It assumes what every
/// estimator of the offset must (a route whose two directions differ by a fixed delay moves the
/// estimate and no exchange can see it): that the two directions delay alike, by their mean
/// under jitter or by their floor under queueing. The truth then lies within it in at least
/// 99.5 % of estimates, from six samples up, under each delay model of `notes/clock.md`
/// (`ServerClockLawTests`).
///
/// Its parts, each for one thing that can be wrong (`n` the typical samples, `f` the floors'
/// weight, `w` the mean's weights, `θ` the offsets, `s` each sample's likely widening):
///
/// - *The mean's noise*: its standard error `√(n/(n−1) · Σ w²(θ − mean)²) / Σ w`, times
///   Student's t at 99.9 % two-sided (``studentT999(degreesOfFreedom:)``) for the effective
///   count `(Σ w)² / Σ w²` less one: the deviation is itself estimated from few samples.
/// - *The floors' noise*: each direction's floor is off by about its standard error `λ / k`
///   (``DelayShape/scale`` over its `k` delays), so `level` by `½ √((λ↑/k↑)² + (λ↓/k↓)²)`,
///   times `5 + 30/n`: the floor's error is an exponential draw, and `λ` is itself estimated
///   from few spacings, so the factor needed for 99.5 % falls from 9.3 at 6 samples to 4.5 at
///   64 (measured across the delay models, with the floors both used and misused).
/// - *Which of the two*: `f(1 − f)|level − mean|`, the distance between the two estimates,
///   counted where the evidence could not decide between them.
/// - *The drift*: the weighted mean of `s`, what the drift's uncertainty may have moved the
///   samples by on their way to the anchor.
///
/// The bar is `f × floors + (1 − f) × mean + which + drift`. With fewer than six samples, or
/// weights that amount to fewer than six, the samples say too little about their own spread,
/// and the bar is the bound.
struct OffsetUncertainty {
    /// The bar in nanoseconds, unrounded; `nil` when the samples are too few for statistics.
    let nanoseconds: Int64?

    /// The fewest samples (and effective samples) whose spread the bar trusts.
    static let fewestSamples = 6.0

    init(
        offsets: [Double], weights: [Double], mean: Double, level: Double, up: DelayShape, down: DelayShape,
        floorWeight: Double, widenings: [Double]
    ) {
        // Plain loops: this runs at every exchange over hundreds of samples.
        var total = 0.0, squares = 0.0, deviations = 0.0, drift = 0.0
        for index in offsets.indices {
            let weight = weights[index], deviation = offsets[index] - mean
            total += weight
            squares += weight * weight
            deviations += weight * weight * deviation * deviation
            drift += weight * widenings[index]
        }
        let count = Double(offsets.count)
        let effectiveCount = total * total / squares
        guard count >= Self.fewestSamples, effectiveCount >= Self.fewestSamples else {
            nanoseconds = nil
            return
        }
        let meanError = (count / (count - 1) * deviations).squareRoot() / total
        let meanBar = studentT999(degreesOfFreedom: effectiveCount - 1) * meanError
        let upError = up.scale / Double(up.count), downError = down.scale / Double(down.count)
        let levelError = (upError * upError + downError * downError).squareRoot() / 2
        let levelBar = (5 + 30 / count) * levelError
        let undecided = floorWeight * (1 - floorWeight) * abs(level - mean)
        let bar = floorWeight * levelBar + (1 - floorWeight) * meanBar + undecided + drift / total
        nanoseconds = Int64(saturating: bar.rounded(.up))
    }
}
