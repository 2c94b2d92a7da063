import CommandLineSupport
import Foundation
import LockstepClient
import LockstepCore

/// What `lockstep time` prints: a calibrated clock read once, this machine's wall clock beside
/// it, and the exchanges behind the estimate.
struct TimeReading {
    /// The server's time at the moment of reading, with its error bound and uncertainty.
    let serverTime: ServerTime
    /// The server's time minus this machine's wall clock.
    let offsetFromWallClock: Int64
    /// The exchanges, oldest first.
    let samples: [ClockSample]
    /// This machine's wall clock minus the monotonic clock that stamps `t1` and `t4`.
    let wallMinusMonotonic: Int64

    init?(clock: ServerClock) {
        let wallMinusMonotonic = WallClock.offsetFromMonotonic()
        let local = ContinuousTimeSource().now()
        guard let serverTime = clock.serverTime(at: local) else { return nil }
        self.serverTime = serverTime
        self.offsetFromWallClock = serverTime.nanosecondsSinceEpoch - (local + wallMinusMonotonic)
        self.samples = clock.samples
        self.wallMinusMonotonic = wallMinusMonotonic
    }

    /// A sample's offset θ measured against this machine's wall clock rather than its monotonic one.
    private func offsetFromWallClock(of sample: ClockSample) -> Int64 {
        sample.offset - wallMinusMonotonic
    }

    func text(url: URL, dateHeader: Bool) -> String {
        let roundTrips = samples.map(\.roundTrip).sorted()
        let ahead = offsetFromWallClock >= 0 ? "ahead of" : "behind"
        var lines = [
            "Server time  \(Self.iso8601(serverTime.nanosecondsSinceEpoch))  (\(url.absoluteString), \(dateHeader ? "Date header" : "GET /time"))",
            "Offset       \(Self.milliseconds(offsetFromWallClock, signed: true)) ms: the server is \(ahead) this machine's clock",
            "Uncertainty  ± \(Self.milliseconds(serverTime.uncertainty.nanoseconds)) ms: the exchanges' statistics",
            "Error bound  ± \(Self.milliseconds(serverTime.errorBound.nanoseconds)) ms: holds whatever the network did",
            "Round trips  \(Self.milliseconds(roundTrips.first ?? 0)) ms shortest, \(Self.milliseconds(roundTrips[roundTrips.count / 2])) ms median, "
                + "\(Self.milliseconds(roundTrips.last ?? 0)) ms longest, of \(samples.count) exchange\(samples.count == 1 ? "" : "s")",
            "",
            "Samples: t1, t4 on this machine's monotonic clock (ns since boot); t2, t3 on the server's (ns since the epoch);",
            "δ the round trip; θ the sample's offset from this machine's wall clock; * opened the connection, so it only bounds the offset",
            "  #  " + Self.column("t1", 18) + Self.column("t2", 21) + Self.column("t3", 21) + Self.column("t4", 18)
                + Self.column("δ (ms)", 11) + "θ (ms)",
        ]
        for (index, sample) in samples.enumerated() {
            lines.append(
                Self.column(String(index + 1), 3, right: true) + (sample.opensConnection ? "* " : "  ")
                    + Self.column(String(sample.t1), 18) + Self.column(String(sample.t2), 21)
                    + Self.column(String(sample.t3), 21) + Self.column(String(sample.t4), 18)
                    + Self.column(Self.milliseconds(sample.roundTrip), 11)
                    + Self.milliseconds(offsetFromWallClock(of: sample), signed: true))
        }
        return lines.joined(separator: "\n")
    }

    func json(url: URL, dateHeader: Bool) -> String {
        let samples: [JSONValue] = samples.map { sample in
            [
                "t1": .integer(sample.t1), "t2": .integer(sample.t2), "t3": .integer(sample.t3), "t4": .integer(sample.t4),
                "round_trip_ns": .integer(sample.roundTrip),
                "theta_ns": .integer(sample.offset),
                "offset_from_wall_clock_ns": .integer(offsetFromWallClock(of: sample)),
                "opens_connection": .bool(sample.opensConnection),
            ]
        }
        let value: JSONValue = [
            "url": .string(url.absoluteString),
            "source": .string(dateHeader ? "date-header" : "time"),
            "server_time": .string(Self.iso8601(serverTime.nanosecondsSinceEpoch)),
            "server_time_ns": .integer(serverTime.nanosecondsSinceEpoch),
            "offset_from_wall_clock_ns": .integer(offsetFromWallClock),
            "error_bound_ns": .integer(serverTime.errorBound.nanoseconds),
            "uncertainty_ns": .integer(serverTime.uncertainty.nanoseconds),
            "round_trips_ns": .array(self.samples.map { .integer($0.roundTrip) }),
            "exchanges": .integer(Int64(self.samples.count)),
            "wall_clock_minus_monotonic_ns": .integer(wallMinusMonotonic),
            "samples": .array(samples),
        ]
        return JSONSerializer(prettyPrinted: true).string(value)
    }

    /// `2025-06-01T07:00:00.123Z`: ISO 8601 with milliseconds, from the integer so nothing is
    /// lost to `Date`'s floating point.
    static func iso8601(_ nanosecondsSinceEpoch: Int64) -> String {
        let (seconds, remainder) = nanosecondsSinceEpoch.quotientAndRemainder(dividingBy: 1_000_000_000)
        let (wholeSeconds, nanoseconds) = remainder < 0 ? (seconds - 1, remainder + 1_000_000_000) : (seconds, remainder)
        let date = Date(timeIntervalSince1970: Double(wholeSeconds)).formatted(.iso8601).dropLast() // the "Z"
        let milliseconds = String(nanoseconds / 1_000_000)
        return "\(date).\(String(repeating: "0", count: 3 - milliseconds.count))\(milliseconds)Z"
    }

    /// Nanoseconds as milliseconds with three decimals (microseconds), the same in every locale.
    static func milliseconds(_ nanoseconds: Int64, signed: Bool = false) -> String {
        let microseconds = (nanoseconds.magnitude + 500) / 1_000
        let sign = nanoseconds < 0 && microseconds > 0 ? "-" : (signed ? "+" : "")
        let fraction = String(microseconds % 1_000)
        return "\(sign)\(microseconds / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    private static func column(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(width - text.count, 1))
        return right ? padding + text : text + padding
    }
}
