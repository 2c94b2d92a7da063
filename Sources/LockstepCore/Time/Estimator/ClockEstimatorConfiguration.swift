/// How much history a ``ClockEstimator`` keeps and how far it trusts the local clock's rate.
public struct ClockEstimatorConfiguration: Sendable, Hashable {
    /// How many of the most recent samples the offset is estimated from.
    public var sampleWindow: Int
    /// How many of the most recent rounds the drift is estimated from.
    public var roundWindow: Int
    /// How long the kept rounds must span before their slope is trusted as the drift rate.
    public var minimumDriftSpan: Duration
    /// The largest rate difference the two clocks may have (1e-6 is one part per million),
    /// assumed until the rounds narrow it. Quartz crystals stay within ±50 ppm each, hence
    /// 100 ppm; raise it for hardware known to be worse, or error bounds will be too small.
    public var frequencyTolerance: Double

    public init(
        sampleWindow: Int = 32,
        roundWindow: Int = 64,
        minimumDriftSpan: Duration = .seconds(15 * 60),
        frequencyTolerance: Double = 100e-6
    ) {
        precondition(sampleWindow >= 1 && roundWindow >= 1, "windows must keep at least one entry")
        precondition((0..<1).contains(frequencyTolerance), "the tolerance is a rate such as 100e-6")
        self.sampleWindow = sampleWindow
        self.roundWindow = roundWindow
        self.minimumDriftSpan = minimumDriftSpan
        self.frequencyTolerance = frequencyTolerance
    }
}
