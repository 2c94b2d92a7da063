import Foundation

/// Timing helpers for benchmarks: repeat an operation until enough time has passed, report
/// the median of several rounds so a noisy, shared machine disturbs the figure less.
enum Measure {
    /// Seconds per call of `operation`: the median over `rounds` rounds of at least `minimum` each.
    static func secondsPerCall(rounds: Int = 5, minimum: Duration = .milliseconds(200), _ operation: () throws -> Void) rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<rounds {
            var calls = 0
            let clock = ContinuousClock()
            let start = clock.now
            repeat {
                try operation()
                calls += 1
            } while clock.now - start < minimum
            samples.append((clock.now - start).seconds / Double(calls))
        }
        return samples.sorted()[samples.count / 2]
    }

    static func format(seconds: Double) -> String {
        switch seconds {
        case ..<1e-6: String(format: "%.0f ns", seconds * 1e9)
        case ..<1e-3: String(format: "%.1f µs", seconds * 1e6)
        case ..<1: String(format: "%.2f ms", seconds * 1e3)
        default: String(format: "%.2f s", seconds)
        }
    }

    static func format(bytesPerSecond: Double) -> String {
        bytesPerSecond >= 1e6 ? String(format: "%.1f MB/s", bytesPerSecond / 1e6) : String(format: "%.1f KB/s", bytesPerSecond / 1e3)
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
