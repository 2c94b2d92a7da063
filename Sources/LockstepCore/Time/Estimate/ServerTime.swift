public import Foundation

/// A moment on the server's clock, with how far it may be from the truth.
///
/// The true server time lies within `nanosecondsSinceEpoch ± errorBound`: the bound is not a
/// standard deviation but a guarantee derived from the exchanges, so code can rely on it
/// ("the item starts at 07:00:00.000 ± 12 ms; wait until the bound has passed to be sure").
public struct ServerTime: Sendable, Hashable, Codable {
    /// Nanoseconds since 1970-01-01T00:00:00Z on the server's clock.
    public var nanosecondsSinceEpoch: Int64
    /// The largest distance between this value and the true server time.
    public var errorBound: Duration

    public init(nanosecondsSinceEpoch: Int64, errorBound: Duration) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
        self.errorBound = errorBound
    }

    /// The same instant as a `Date` (a `Double` of seconds, so precise to about a microsecond).
    public var date: Date {
        let (seconds, nanoseconds) = nanosecondsSinceEpoch.floorDividedBy(1_000_000_000)
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }

    /// The earliest the true server time can be.
    public var earliest: Int64 { nanosecondsSinceEpoch - errorBound.nanoseconds }
    /// The latest the true server time can be.
    public var latest: Int64 { nanosecondsSinceEpoch + errorBound.nanoseconds }
}

extension ServerTime: CustomStringConvertible {
    /// ISO 8601 with milliseconds and the bound, e.g. `2025-06-01T07:00:00.123Z ± 12.4 ms`.
    /// The fractions come from the integers, so they read the same in every locale and lose
    /// nothing to `Date`'s floating point.
    public var description: String {
        let (seconds, nanoseconds) = nanosecondsSinceEpoch.floorDividedBy(1_000_000_000)
        let wholeSeconds = Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601).dropLast() // the "Z"
        let milliseconds = String(nanoseconds / 1_000_000)
        let tenthsOfMilliseconds = (errorBound.nanoseconds + 50_000) / 100_000
        return "\(wholeSeconds).\(String(repeating: "0", count: 3 - milliseconds.count))\(milliseconds)Z"
            + " ± \(tenthsOfMilliseconds / 10).\(tenthsOfMilliseconds % 10) ms"
    }
}

extension Int64 {
    /// Quotient rounded towards minus infinity, and the remainder that goes with it (never
    /// negative), so that times before 1970 split into a second and a fraction after it.
    package func floorDividedBy(_ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating beyond ±292 years.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !carry else { return seconds < 0 ? .min : .max }
        return total
    }
}
