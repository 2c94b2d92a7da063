import LockstepCore

/// A ``ClockEstimator`` driven through planned exchanges against a known truth, with the
/// estimate checked after every exchange: at its anchor, and at the last instant it serves
/// (just before the next exchange leaves, which after a long sleep is hours later).
struct FaultRun {
    /// One look at the estimate.
    struct Check {
        /// How many exchanges had been recorded.
        var exchanges: Int
        var instant: Int64
        var error: Int64
        var bar: Int64

        var holds: Bool { error.magnitude <= bar.magnitude && bar >= 0 }
    }

    private(set) var checks: [Check] = []
    private(set) var estimator: ClockEstimator

    init(_ plan: [PlannedExchange], truth: ClockTruth, configuration: ClockEstimatorConfiguration = .init()) {
        estimator = ClockEstimator(configuration: configuration)
        for (index, exchange) in plan.enumerated() {
            estimator.record(truth.exchange(at: exchange.t1, up: exchange.up, down: exchange.down))
            if exchange.endsRound { estimator.completeRound() }
            guard let estimate = estimator.estimate else { continue }
            var instants = [estimate.anchor]
            if index + 1 < plan.count { instants.append(plan[index + 1].t1) }
            for instant in instants {
                checks.append(Check(
                    exchanges: index + 1, instant: instant, error: estimate.offset(at: instant) - truth.offset(at: instant),
                    bar: estimate.errorBound(at: instant)))
            }
        }
    }

    /// The checks whose bar missed the truth.
    var misses: [Check] { checks.filter { !$0.holds } }
}
