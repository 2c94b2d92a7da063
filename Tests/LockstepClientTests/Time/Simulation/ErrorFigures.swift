/// The median and 99th percentile of absolute errors, in milliseconds.
struct ErrorFigures: CustomStringConvertible {
    let median: Double
    let p99: Double
    let count: Int

    init(nanoseconds errors: [Int64]) {
        let sorted = errors.map { Double($0.magnitude) / 1e6 }.sorted()
        median = Self.quantile(0.5, of: sorted)
        p99 = Self.quantile(0.99, of: sorted)
        count = sorted.count
    }

    var description: String {
        "median \(twoDecimals(median)) ms, p99 \(twoDecimals(p99)) ms over \(count) trials"
    }

    /// Linear interpolation between the closest ranks.
    private static func quantile(_ fraction: Double, of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let position = fraction * Double(sorted.count - 1)
        let below = Int(position)
        let above = min(below + 1, sorted.count - 1)
        return sorted[below] + (sorted[above] - sorted[below]) * (position - Double(below))
    }
}

/// A non-negative `value` with two decimals, the same in every locale.
func twoDecimals(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
}
