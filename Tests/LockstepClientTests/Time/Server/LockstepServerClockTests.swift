import CommandLineSupport
import Foundation
@testable import lockstep
@testable import lockstep_bench
import LockstepClient
import LockstepCore
import Testing

/// `ServerClock` and `lockstep time` against a real Lockstep server on 127.0.0.1 whose clock is
/// set a known offset ahead of this machine's.
@Suite struct LockstepServerClockTests {
    static let offset: Int64 = 1_234_567_000

    /// The server's true offset from the monotonic clock `ServerClock` measures with.
    private static func truth() -> Int64 {
        WallClock.offsetFromMonotonic() + offset
    }

    private static func withServer(_ body: (EmbeddedServer) async throws -> Void) async throws {
        let server = try await EmbeddedServer.start(clockOffset: offset)
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Calibrates a new clock over `url` and checks the truth is within its bar.
    private static func expectCalibration(over url: URL) async throws {
        let clock = ServerClock(transport: HTTPClockExchangeTransport(serverURL: url), configuration: .init(targetErrorBound: .zero))
        try await clock.resync()
        let local = ContinuousTimeSource().now()
        let estimate = try #require(clock.estimate)
        let error = estimate.offset(at: local) - truth()
        #expect(error.magnitude <= estimate.errorBound(at: local).magnitude, "error \(error) ns, bar \(estimate.errorBound) ns")
        #expect(clock.samples.count == 16)
        // A bar this wide would hold for an offset of zero too; the test would prove nothing.
        #expect(estimate.errorBound < offset / 2)
    }

    @Test func findsTheOffsetOnLoopback() async throws {
        try await Self.withServer { server in
            try await Self.expectCalibration(over: server.baseURL)
        }
    }

    @Test func findsTheOffsetThroughAnAsymmetricLink() async throws {
        try await Self.withServer { server in
            let link = LinkModel(
                name: "short bufferbloat",
                up: .queueing(floorMilliseconds: 2, meanWaitMilliseconds: 0.5),
                down: .queueing(floorMilliseconds: 2, meanWaitMilliseconds: 4))
            let relay = try await DelayRelay.start(targetPort: server.port, link: link)
            try await Self.expectCalibration(over: URL(string: "http://127.0.0.1:\(relay.port)/")!)
            try await relay.stop()
        }
    }

    @Test func lockstepTimeReportsTheServersOffsetFromTheWallClock() async throws {
        try await Self.withServer { server in
            let command = try TimeCommand.parse([server.baseURL.absoluteString, "--exchanges", "3"])
            let reading = try await command.read()
            #expect(reading.samples.count == 3)
            let error = reading.offsetFromWallClock - Self.offset
            #expect(error.magnitude <= reading.serverTime.errorBound.nanoseconds.magnitude)
            let text = reading.text(url: server.baseURL, dateHeader: false)
            #expect(text.contains("the server is ahead of this machine's clock"))
            #expect(text.contains("Uncertainty  ± ") && text.contains("Error bound  ± "))
            let json = try JSONValue(parsing: Array(reading.json(url: server.baseURL, dateHeader: false).utf8))
            #expect(json["samples"]?.arrayValue?.count == 3)
            #expect(json["offset_from_wall_clock_ns"]?.integerValue == reading.offsetFromWallClock)
            #expect(json["uncertainty_ns"]?.integerValue == reading.serverTime.uncertainty.nanoseconds)
        }
    }

    @Test func lockstepTimeSaysWhenTheServerIsNotLockstep() async throws {
        let server = try LoopbackHTTPServer { _ in .init(status: 404) }
        defer { server.stop() }
        let command = try TimeCommand.parse([server.baseURL.absoluteString])
        let error = await #expect(throws: TimeCommandError.self) { try await command.read() }
        #expect(error?.description.contains("HTTP 404") == true)
        #expect(error?.description.contains("--date-header") == true)
    }

    @Test func lockstepTimeSaysWhenTheServerIsUnreachable() async throws {
        // The discard port, below the ephemeral range: no test server can be given it while
        // the command retries (a port freed a moment ago once was).
        let port = 9
        let command = try TimeCommand.parse(["http://127.0.0.1:\(port)", "--timeout", "5"])
        let error = await #expect(throws: TimeCommandError.self) { try await command.read() }
        #expect(error?.description.hasPrefix("could not reach http://127.0.0.1:\(port)") == true)
    }

    @Test func lockstepTimeRefusesWhatIsNotAnHTTPURL() {
        #expect(throws: (any Error).self) { try TimeCommand.parse(["ftp://example.com"]) }
        #expect(throws: (any Error).self) { try TimeCommand.parse(["http://127.0.0.1", "--exchanges", "33"]) }
    }
}
