import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepClient
import LockstepCore

/// `lockstep time URL`: what time a server says it is, how far this machine's clock is from
/// it, and how sure the answer is, from the same `ServerClock` apps use.
struct TimeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "time",
        abstract: "Ask a server for its time: the time, this machine's offset from it, the error bar, and the exchanges.",
        discussion: """
            Makes 16 NTP-style exchanges with a Lockstep server's GET /time (or, with --date-header, \
            reads any HTTP server's Date header, good to a second at best) and estimates the server's \
            clock with an error bound that holds (the true time is within it) and the tighter \
            uncertainty the exchanges' statistics give (the truth is within it 199 times in 200 on a \
            link whose two directions delay alike).
            """)

    @Argument(help: "The server's base URL, such as http://127.0.0.1:8080 (with --date-header, any http(s) URL).")
    var url: String

    @Flag(name: .customLong("date-header"), help: "Read the Date header of any HTTP server instead of a Lockstep server's /time.")
    var dateHeader = false

    @Option(help: "Exchanges to make, 1 to 32.")
    var exchanges = 16

    @Option(help: "Seconds to wait for each reply.")
    var timeout = 10.0

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        guard (1...32).contains(exchanges) else { throw ValidationError("--exchanges must be 1 to 32") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        _ = try serverURL()
    }

    func run() async throws {
        let reading = try await read()
        let url = try serverURL()
        print(json ? reading.json(url: url, dateHeader: dateHeader) : reading.text(url: url, dateHeader: dateHeader))
    }

    /// Calibrates a fresh `ServerClock` against the server and reads it.
    func read() async throws -> TimeReading {
        let serverURL = try serverURL()
        let wait = Duration.milliseconds(Int64((timeout * 1000).rounded()))
        let transport: any ClockExchangeTransport = dateHeader
            ? HTTPDateClockExchangeTransport(url: serverURL, timeout: wait)
            : HTTPClockExchangeTransport(serverURL: serverURL, timeout: wait)
        // All the exchanges asked for, even when the first already gives a tight bar.
        let clock = ServerClock(transport: transport, configuration: .init(exchangesPerRound: exchanges, targetErrorBound: .zero))
        do {
            try await clock.resync()
        } catch {
            throw TimeCommandError(url: serverURL, underlying: error)
        }
        guard let reading = TimeReading(clock: clock) else { throw ServerClockError.uncalibrated }
        return reading
    }

    private func serverURL() throws -> URL {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              parsed.host?.isEmpty == false
        else { throw ValidationError("\(url) is not an http:// or https:// URL") }
        return parsed
    }
}

/// Why `lockstep time` got no answer, in words that say what to do next.
struct TimeCommandError: Error, CustomStringConvertible {
    let url: URL
    let underlying: any Error

    var description: String {
        switch underlying {
        case ClockExchangeError.unexpectedStatus(let status):
            "\(url) answered GET /time with HTTP \(status): \(notLockstep)"
        case ClockExchangeError.malformedReply(let reason):
            "\(url) answered GET /time with something other than a clock exchange (\(reason)): \(notLockstep)"
        case ClockExchangeError.missingDate:
            "\(url) sent no Date header that parses as an HTTP date"
        default:
            "could not reach \(url): \(underlying)"
        }
    }

    private var notLockstep: String {
        "is it a Lockstep server? For any other HTTP server, add --date-header"
    }
}
