import ArgumentParser
import AsyncHTTPClient
import CommandLineSupport
import Foundation
import LockstepClient
import LockstepCore

/// One fresh client calibrating against a server on this machine whose clock runs a known
/// offset ahead: how far its estimate landed from the truth, and whether its bar said so.
struct ClockTrial: Sendable {
    /// The estimated offset minus the true one, in nanoseconds.
    var error: Int64
    /// The error bar the client reported.
    var errorBound: Int64
    /// How many exchanges the round made before it stopped.
    var exchanges: Int
    /// Each exchange's true one-way delays, in the order they were made.
    var legs: [Legs]

    /// How long one exchange spent crossing each way, known because client and server read
    /// the same machine's clock.
    struct Legs: Sendable {
        /// Client send to server receive, in nanoseconds.
        var up: Int64
        /// Server send to client receive, in nanoseconds.
        var down: Int64
    }

    /// Whether the truth lies within the reported bar.
    var isCovered: Bool { error.magnitude <= errorBound.magnitude }

    /// A new client (its own `HTTPClient`, so its own connection) makes one round of exchanges
    /// with `serverURL`, the way an app does when it starts, and is compared with the truth.
    /// Over `.socket`, the client first opens a streaming socket and exchanges over it.
    static func run(
        serverURL: URL, clockOffset: Int64, configuration: ServerClock.Configuration, over transport: ClockTransportKind
    ) async throws -> ClockTrial {
        let httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let http = HTTPClockExchangeTransport(serverURL: serverURL, httpClient: httpClient)
        var socket: ClockSocket?
        do {
            if transport == .socket { socket = try await ClockSocket.open(serverURL: serverURL, fallback: http) }
            let clock = ServerClock(transport: socket?.transport ?? http, configuration: configuration)
            try await clock.resync()
            let local = ContinuousTimeSource().now()
            // The server reads this machine's wall clock, shifted by `clockOffset`.
            let truth = WallClock.offsetFromMonotonic() + clockOffset
            guard let estimate = clock.estimate else { throw ServerClockError.uncalibrated }
            await socket?.close()
            try await httpClient.shutdown()
            return ClockTrial(
                error: estimate.offset(at: local) - truth,
                errorBound: estimate.errorBound(at: local),
                exchanges: clock.samples.count,
                legs: clock.samples.map { Legs(up: $0.t2 - truth - $0.t1, down: $0.t4 - ($0.t3 - truth)) })
        } catch {
            await socket?.close()
            try? await httpClient.shutdown()
            throw error
        }
    }

    /// Runs a trial for each configuration, `concurrency` at a time, and returns the results in
    /// the same order (a failed trial as its error).
    static func runMany(
        _ configurations: [ServerClock.Configuration], concurrency: Int, serverURL: URL, clockOffset: Int64,
        over transport: ClockTransportKind
    ) async -> [Result<ClockTrial, any Error>] {
        await withTaskGroup(of: (Int, Result<ClockTrial, any Error>).self) { group in
            var results = [Result<ClockTrial, any Error>?](repeating: nil, count: configurations.count)
            var next = 0
            func startNext() {
                guard next < configurations.count else { return }
                let (index, configuration) = (next, configurations[next])
                next += 1
                group.addTask {
                    let result = await Result {
                        try await run(serverURL: serverURL, clockOffset: clockOffset, configuration: configuration, over: transport)
                    }
                    return (index, result)
                }
            }
            for _ in 0..<max(concurrency, 1) { startNext() }
            for await (index, result) in group {
                results[index] = result
                startNext()
            }
            return results.map { $0! }
        }
    }
}

/// How a benchmark client reaches the server's clock.
enum ClockTransportKind: String, Sendable, CaseIterable, ExpressibleByArgument {
    /// `GET /time` on a new HTTP connection: how an app calibrates before its socket is up.
    case http
    /// `t:` frames over a streaming socket opened first: how a connected app re-syncs.
    case socket
}

extension Result where Failure == any Error {
    /// The result of an async throwing body.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
