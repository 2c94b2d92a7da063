import Foundation

/// What a set of trials says about a client: how far its estimates landed from the truth, how
/// often its bar held, and how many exchanges it spent.
struct ClockFigures {
    var trials: Int
    var failures: Int
    /// Median and 99th percentile of |error|, in nanoseconds.
    var medianError: Double
    var p99Error: Double
    /// The median error bar the clients reported, in nanoseconds.
    var medianBound: Double
    /// The fraction of estimates whose bar contains the truth.
    var coverage: Double
    var meanExchanges: Double
    /// How the exchanges crossed the link, by place in the round.
    var legs: LegFigures

    init(_ results: [Result<ClockTrial, any Error>]) {
        let trials = results.compactMap { try? $0.get() }
        let errors = trials.map { Double($0.error.magnitude) }.sorted()
        self.trials = trials.count
        failures = results.count - trials.count
        medianError = quantile(0.5, of: errors)
        p99Error = quantile(0.99, of: errors)
        medianBound = quantile(0.5, of: trials.map { Double($0.errorBound) }.sorted())
        coverage = Double(trials.filter(\.isCovered).count) / Double(max(trials.count, 1))
        meanExchanges = Double(trials.map(\.exchanges).reduce(0, +)) / Double(max(trials.count, 1))
        legs = LegFigures(results)
    }
}

/// How far apart the estimates of clients calibrated at the same time are.
struct ClockSpread {
    /// From the 1st to the 99th percentile of the estimated offsets, in nanoseconds.
    var p1ToP99: Double
    /// From the lowest to the highest estimate.
    var range: Double

    init(_ results: [Result<ClockTrial, any Error>]) {
        // Every client has the same true offset, so the errors spread as the estimates do.
        let errors = results.compactMap { try? $0.get() }.map { Double($0.error) }.sorted()
        p1ToP99 = quantile(0.99, of: errors) - quantile(0.01, of: errors)
        range = (errors.last ?? .nan) - (errors.first ?? .nan)
    }
}

/// The `fraction` quantile of sorted values, interpolating linearly between the closest ranks.
func quantile(_ fraction: Double, of sorted: [Double]) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let position = fraction * Double(sorted.count - 1)
    let below = Int(position)
    let above = min(below + 1, sorted.count - 1)
    return sorted[below] + (sorted[above] - sorted[below]) * (position - Double(below))
}

/// The median of `values`, in any order.
func median(_ values: [Double]) -> Double {
    quantile(0.5, of: values.sorted())
}

/// A duration in nanoseconds for a table: µs below a millisecond, ms above.
func formatNanoseconds(_ value: Double) -> String {
    guard value.isFinite else { return "–" }
    return value.magnitude < 1e6 ? String(format: "%.1f µs", value / 1e3) : String(format: "%.2f ms", value / 1e6)
}
