#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import LockstepCore

/// The body of a webhook request: one or more events, in order.
///
/// ```json
/// {"events":[{"id":"evt_1042.0","type":"change","timestamp":"2026-12-01T13:15:02.371Z","data":{…}}]}
/// ```
///
/// Each event's `id` is the same in every request that carries it; `timestamp` is when it
/// happened (a change's commit); `data` is what ``ChangeEvents`` (and the other events'
/// writers) recorded.
enum WebhookBody {
    static func bytes(_ events: [WebhookEventRecord]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(events.reduce(16) { $0 + $1.payload.utf8.count + 96 })
        output.appendLiteral(#"{"events":["#)
        for (index, event) in events.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            append(id: event.id, type: event.type.rawValue, time: event.createdAt, payload: event.payload, to: &output)
        }
        output.appendLiteral("]}")
        return output
    }

    /// One event written as the body's elements are.
    static func append(id: String, type: String, time: Int64, payload: String, to output: inout [UInt8]) {
        output.appendLiteral(#"{"id":"#)
        JSONSerializer.appendString(id, to: &output)
        output.appendLiteral(#","type":"#)
        JSONSerializer.appendString(type, to: &output)
        output.appendLiteral(#","timestamp":""#)
        appendISO8601(time, to: &output)
        output.appendLiteral(#"","data":"#)
        output.append(contentsOf: payload.utf8)
        output.append(UInt8(ascii: "}"))
    }

    /// How many bytes an event takes in a body, near enough for ``WebhookLimits/maximumBatchBytes``.
    static func size(_ event: WebhookEventRecord) -> Int {
        event.payload.utf8.count + 96
    }

    /// `2026-12-08T09:15:02.371Z` for nanoseconds since the Unix epoch.
    static func appendISO8601(_ nanoseconds: Int64, to output: inout [UInt8]) {
        let (whole, fraction) = nanoseconds.floorDividedBy(1_000_000_000)
        var seconds = time_t(whole)
        let milliseconds = Int(fraction / 1_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                output.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(Int(parts.tm_year) + 1900, 4)
        output.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        output.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        output.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        output.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        output.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        output.append(UInt8(ascii: "."))
        digits(milliseconds, 3)
        output.append(UInt8(ascii: "Z"))
    }
}
