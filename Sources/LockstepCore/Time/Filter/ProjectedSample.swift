/// A sample's offset bounds carried from the moment of its exchange to another local instant.
///
/// The projection starts from the exchange's local midpoint and moves the bounds by the
/// drift's rate, widening them by the drift's `rateBound` for every nanosecond travelled, so
/// that the true offset at `instant` stays inside. The server's stamps were taken up to half
/// the exchange's span from that midpoint, and over that stretch the whole rate, not only its
/// error, went unaccounted for: the bounds widen by that too.
///
/// The same projection widened by the drift's `rateUncertainty` instead gives the bounds the
/// statistics work on (``likelyBounds``): an old sample counts as the delays it suffered plus
/// what the drift may have added since, at the confidence of the estimate's uncertainty.
struct ProjectedSample {
    /// The offsets the sample allows at the projected instant.
    let bounds: ClosedRange<Int64>
    /// The offsets the sample allows at the projected instant, were the drift's rate within
    /// its uncertainty: the same centre, narrower by the drift's bound less its uncertainty.
    let likelyBounds: ClosedRange<Int64>
    /// The exchange's own round trip δ, which says how much delay the sample suffered.
    let roundTrip: Int64
    /// How much the statistical projection widened the bounds on each side: what the drift's
    /// uncertainty may have moved the sample's offset by on its way to the instant.
    let likelyWidening: Int64
    /// Whether the exchange's up leg is the link's: not so when it had to open its connection.
    let upLegIsTypical: Bool

    init(_ sample: ClockSample, at instant: Int64, drift: ClockDrift) {
        let travel = instant - sample.localMidpoint
        let halfSpan = (sample.t4 - sample.t1 + 1) / 2
        let shift = drift.offsetChange(over: travel)
        let unaccountedRate = Int64(saturating: (abs(drift.rate) * Double(halfSpan)).rounded(.up))
        let widening = drift.boundGrowth(over: abs(travel) + halfSpan) + unaccountedRate
        likelyWidening = drift.uncertaintyGrowth(over: abs(travel) + halfSpan) + unaccountedRate
        let own = sample.offsetBounds
        bounds = (own.lowerBound + shift - widening)...(own.upperBound + shift + widening)
        likelyBounds = (own.lowerBound + shift - likelyWidening)...(own.upperBound + shift + likelyWidening)
        roundTrip = sample.roundTrip
        upLegIsTypical = !sample.opensConnection
    }

    /// The middle of the projected bounds: the sample's own offset estimate θ, moved.
    var offset: Int64 { bounds.midpoint }
}
