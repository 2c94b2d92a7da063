public import Foundation

/// A moment on the server's clock, with how far it may be from the truth.
///
/// The true server time lies within `nanosecondsSinceEpoch ± errorBound`: the bound is not a
/// standard deviation but a guarantee derived from the exchanges, so code can rely on it
/// ("the item starts at 07:00:00.000 ± 12 ms; wait until the bound has passed to be sure").
///
/// ``uncertainty`` is the tighter bar the exchanges' statistics give: the truth lies within it
/// in at least 99.5 % of readings on a link whose two directions delay alike (see
/// ``ClockEstimate``). It is the bar to show a person, and to judge how closely devices agree
/// ("07:00:00.000 ± 1.2 ms"); the bound is the one to wait out where being early is not an
/// option.
public struct ServerTime: Sendable, Hashable, Codable {
    /// Nanoseconds since 1970-01-01T00:00:00Z on the server's clock.
    public var nanosecondsSinceEpoch: Int64
    /// The largest distance between this value and the true server time.
    public var errorBound: Duration
    /// The distance to the true server time the exchanges' statistics allow; never more than
    /// ``errorBound``.
    public var uncertainty: Duration

    /// A server time; without an `uncertainty`, the bound is all that is known.
    public init(nanosecondsSinceEpoch: Int64, errorBound: Duration, uncertainty: Duration? = nil) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
        self.errorBound = errorBound
        self.uncertainty = min(uncertainty ?? errorBound, errorBound)
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
    /// ISO 8601 with milliseconds and the bars, e.g. `2025-06-01T07:00:00.123Z ± 12.4 ms`, or
    /// `2025-06-01T07:00:00.123Z ± 1.3 ms (bound 12.4 ms)` once the uncertainty is the tighter.
    /// The fractions come from the integers, so they read the same in every locale and lose
    /// nothing to `Date`'s floating point.
    public var description: String {
        let (seconds, nanoseconds) = nanosecondsSinceEpoch.floorDividedBy(1_000_000_000)
        let wholeSeconds = Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601).dropLast() // the "Z"
        let milliseconds = String(nanoseconds / 1_000_000)
        let time = "\(wholeSeconds).\(String(repeating: "0", count: 3 - milliseconds.count))\(milliseconds)Z"
        let bar = Self.milliseconds(uncertainty), bound = Self.milliseconds(errorBound)
        return bar == bound ? "\(time) ± \(bound) ms" : "\(time) ± \(bar) ms (bound \(bound) ms)"
    }

    /// A duration in milliseconds with one decimal, rounded to the nearest.
    private static func milliseconds(_ duration: Duration) -> String {
        let tenths = (duration.nanoseconds + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension ServerTime {
    private enum CodingKeys: String, CodingKey {
        case nanosecondsSinceEpoch, errorBound, uncertainty
    }

    /// Reads times saved before ``uncertainty`` existed as well (it is then the bound).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            nanosecondsSinceEpoch: try container.decode(Int64.self, forKey: .nanosecondsSinceEpoch),
            errorBound: try container.decode(Duration.self, forKey: .errorBound),
            uncertainty: try container.decodeIfPresent(Duration.self, forKey: .uncertainty))
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
