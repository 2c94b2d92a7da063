/// How much history a ``ClockEstimator`` keeps and how far it trusts the local clock's rate.
public struct ClockEstimatorConfiguration: Sendable, Hashable {
    /// How many of the most recent samples the offset is estimated from: 256, two minutes of
    /// continuous calibration at its full budget, or about an hour and a half of rounds of 16
    /// every five minutes (older samples fade from the mean as the drift's uncertainty blurs
    /// them). A few microseconds of work per exchange, and about 30 kB of calibration on disk.
    public var sampleWindow: Int
    /// How many of the most recent rounds the drift is estimated from.
    public var roundWindow: Int
    /// How long the kept rounds must span before their slope is used as the drift rate at all;
    /// from then on the slope is weighed by its own standard error (see `DriftEstimator`), so
    /// two minutes of noisy rounds move the rate little and say so. Two minutes.
    public var minimumDriftSpan: Duration
    /// The largest rate difference the two clocks may have (1e-6 is one part per million),
    /// assumed until the rounds narrow it. Quartz crystals stay within ±50 ppm each, hence
    /// 100 ppm; raise it for hardware known to be worse, or error bounds will be too small.
    public var frequencyTolerance: Double

    public init(
        sampleWindow: Int = 256,
        roundWindow: Int = 64,
        minimumDriftSpan: Duration = .seconds(2 * 60),
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
