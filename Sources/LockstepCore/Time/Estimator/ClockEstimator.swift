/// Turns a stream of clock exchanges into an estimate of the server's clock.
///
/// Exchanges come in rounds (a quick burst at start, on reconnect, on each periodic re-sync):
/// ``record(_:)`` each sample as it arrives, then ``completeRound()``. The offset comes from
/// the most recent samples (see `OffsetFilter` for how, and how well); the drift from the
/// rounds (see `DriftEstimator`); the estimate projects the offset along the drift from the
/// newest sample, its bound widening with the drift's uncertainty.
///
/// History that contradicts the newest sample (no common offset within the drift's bounds)
/// means the server's clock stepped or the local clock drifted faster than allowed: the
/// estimator forgets the oldest entries until the rest agree, so one bad assumption costs a
/// re-convergence, never a wrong error bound that sticks.
public struct ClockEstimator: Sendable {
    public let configuration: ClockEstimatorConfiguration
    /// What the estimator remembers; persist it to keep the calibration across restarts.
    public private(set) var history: ClockHistory
    /// The drift measured from the rounds so far.
    public private(set) var drift: ClockDrift
    /// The current estimate, or `nil` before the first sample.
    public private(set) var estimate: ClockEstimate?

    /// An estimator that resumes from `history` (for instance one persisted before a restart).
    public init(configuration: ClockEstimatorConfiguration = .init(), history: ClockHistory = .init()) {
        self.configuration = configuration
        self.history = history
        self.drift = .unmeasured(tolerance: configuration.frequencyTolerance)
        self.estimate = nil
        updateDrift()
        updateEstimate()
    }

    /// Adds one exchange of the round in progress. Returns `false`, and changes nothing, for an
    /// implausible sample (time running backwards on either side).
    @discardableResult
    public mutating func record(_ sample: ClockSample) -> Bool {
        guard sample.isPlausible else { return false }
        history.samples.append(sample)
        history.openRound.append(sample)
        updateEstimate()
        return true
    }

    /// Closes the round in progress: its samples become one point of the drift's history.
    public mutating func completeRound() {
        guard let newest = history.openRound.map(\.localMidpoint).max() else { return }
        // Within a round the drift is negligible; bound it by the tolerance alone so that each
        // round is an independent measurement of the offset.
        let unmeasured = ClockDrift.unmeasured(tolerance: configuration.frequencyTolerance)
        if let point = OffsetFilter.estimate(from: history.openRound, at: newest, drift: unmeasured) {
            history.rounds.append(point)
        }
        history.openRound.removeAll()
        updateDrift()
        updateEstimate()
    }

    private mutating func updateDrift() {
        history.rounds = Array(history.rounds.suffix(configuration.roundWindow))
        while true {
            if let measured = DriftEstimator.drift(from: history.rounds, configuration: configuration) {
                drift = measured
                return
            }
            history.rounds.removeFirst()
        }
    }

    private mutating func updateEstimate() {
        history.samples = Array(history.samples.suffix(configuration.sampleWindow))
        guard let anchor = history.samples.map(\.localMidpoint).max() else {
            estimate = nil
            return
        }
        while true {
            if let current = OffsetFilter.estimate(from: history.samples, at: anchor, drift: drift) {
                estimate = current
                return
            }
            history.samples.removeFirst()
        }
    }
}
