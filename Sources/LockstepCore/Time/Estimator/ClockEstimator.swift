/// Turns a stream of clock exchanges into an estimate of the server's clock.
///
/// Exchanges come in rounds (a quick burst at start and on reconnect, a minute of continuous
/// exchanges, or a periodic re-sync): ``record(_:)`` each sample as it arrives, then
/// ``completeRound()``. The offset comes from the most recent samples (see `OffsetFilter` for
/// how, and how well); the drift from the rounds (see `DriftEstimator`); the estimate projects
/// the offset along the drift from the newest sample, its bound widening with the drift's
/// bound and its uncertainty with the drift's uncertainty.
///
/// History that contradicts the newest sample (no common offset within the drift's bounds)
/// means the server's clock stepped or the local clock drifted faster than allowed: the
/// estimator forgets the oldest samples until the rest agree, and every round with them (the
/// drift starts over), so one bad assumption costs a re-convergence, never a wrong error bound
/// that sticks. A step too small for any exchange to contradict is caught by the statistics
/// instead, when it is larger than the uncertainties: a round whose offset lies farther from
/// what the samples before it said than both uncertainties together ends the model the same
/// way (the samples before it and every round are forgotten). A step smaller still can read as
/// drift; it is forgotten when the rounds before it leave the drift's window.
/// `ClockFaultTests` holds the estimator's bound to all of this, under asymmetric routes, delay
/// spikes and sleeps of hours; `ServerClockLawTests` holds its uncertainty to the simulated
/// links of `notes/clock.md`.
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
        // Each round's bound is an independent measurement of the offset: whatever the drift
        // estimate, it allows every rate within the tolerance for the drift within the round.
        // Its offset and uncertainty follow the drift measured so far: a minute of exchanges
        // projected at a rate of 0 would land off by the rate times half a minute, where a
        // burst lands off by nothing, and their mixture would read as a slope or a step.
        let withinRound = ClockDrift(
            rate: drift.rate, rateBound: configuration.frequencyTolerance + abs(drift.rate), rateUncertainty: drift.rateUncertainty)
        if let point = OffsetFilter.estimate(from: history.openRound, at: newest, drift: withinRound) {
            if contradictsEarlierSamples(point) {
                forgetAllBefore(history.openRound)
            }
            history.rounds.append(point)
        }
        history.openRound.removeAll()
        updateDrift()
        updateEstimate()
    }

    /// Whether a completed round's offset lies farther from what the samples before it say
    /// (projected along the drift to the round's anchor) than both their uncertainties together:
    /// each holds the truth 199 times in 200, so both missing it by that much, in opposite
    /// directions, means the clocks moved. Estimates whose uncertainty is only their bound (too
    /// few samples for statistics) leave the test to the bounds.
    private func contradictsEarlierSamples(_ round: ClockEstimate) -> Bool {
        let inRound = Set(history.openRound)
        let earlier = history.samples.filter { !inRound.contains($0) }
        guard round.uncertainty < round.errorBound, !earlier.isEmpty,
              let before = OffsetFilter.estimate(from: earlier, at: round.anchor, drift: drift),
              before.uncertainty < before.errorBound
        else { return false }
        return (round.offset - before.offset).magnitude > UInt64(round.uncertainty + before.uncertainty)
    }

    /// A clock moved before `samples` (the round just completed): the model starts over from them.
    private mutating func forgetAllBefore(_ samples: [ClockSample]) {
        let kept = Set(samples)
        history.samples.removeAll { !kept.contains($0) }
        history.rounds.removeAll()
        updateDrift()
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
        var contradicted = false
        while true {
            if let current = OffsetFilter.estimate(from: history.samples, at: anchor, drift: drift) {
                estimate = current
                break
            }
            history.samples.removeFirst()
            contradicted = true
        }
        if contradicted { forgetRoundsAfterContradiction() }
    }

    /// The samples contradicted each other: a clock jumped (or drifted faster than allowed)
    /// somewhere before the newest. Every round is suspect then, not only those the samples'
    /// window reaches back to: a round taken across the jump mixes two clocks into one narrow,
    /// wrong offset, and rounds on either side of it read the jump as a drift at the edge of the
    /// tolerance, with a bound far too tight. Such a drift shrank every later error bar below
    /// the truth for as long as those rounds stayed in its window (up to 64 rounds), so the drift
    /// starts over, unmeasured, from the rounds that follow.
    private mutating func forgetRoundsAfterContradiction() {
        history.rounds.removeAll()
        history.openRound.removeAll { !history.samples.contains($0) }
        updateDrift()
        guard let anchor = history.samples.map(\.localMidpoint).max() else { return }
        // The tolerance's drift is at least as wide as the one it replaces, so the samples that
        // agreed still agree.
        estimate = OffsetFilter.estimate(from: history.samples, at: anchor, drift: drift) ?? estimate
    }
}
