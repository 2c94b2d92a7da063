import Foundation
@testable import lockstep
import LockstepClient
import Testing

/// `lockstep store watch` against a real server: the grid, on a `ServerClock` calibrated
/// against that server.
@Suite struct StoreWatchTests {
    @Test(.timeLimit(.minutes(1))) func showsTheGridOnTheServersClock() async throws {
        let server = try await StoreServer.start(configuration: TimelineFixtures.configuration(), seedText: TimelineFixtures.seedText)
        defer { Task { await server.stop() } }
        let command = try StoreWatch.parse(["--url", server.baseURL, "--frames", "15", "main"])
        var frames: [String] = []
        try await command.watch { frames.append($0) }

        #expect(frames.count == 15)
        let last = try #require(frames.last)
        #expect(last.hasPrefix("store main · server time "))
        #expect(last.contains("covered until"))
        #expect(!last.contains("last problem"))
        // The server's clock is this machine's, so the grid's time reads the wall clock's.
        let shown = try #require(last.split(separator: " ").dropFirst(5).first.flatMap { Self.millisecondsOfDay(String($0)) })
        let wall = Int64(Date().timeIntervalSince1970 * 1000) % 86_400_000
        let apart = abs(wall - shown)
        #expect(min(apart, 86_400_000 - apart) < 2_000, "grid \(shown) ms into the day, wall clock \(wall)")
    }

    @Test(.timeLimit(.minutes(1))) func saysWhenTheServerHasNoClock() async throws {
        let server = try LoopbackHTTPServer { _ in .init(status: 404) }
        defer { server.stop() }
        let command = try StoreWatch.parse(["--url", server.baseURL.absoluteString, "--frames", "1", "main"])
        let error = await #expect(throws: (any Error).self) { try await command.watch { _ in } }
        #expect("\(error.map { "\($0)" } ?? "")".contains("did not answer a clock exchange"))
    }

    /// `HH:MM:SS.t` as milliseconds since midnight.
    private static func millisecondsOfDay(_ text: String) -> Int64? {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "." }).compactMap { Int64($0) }
        guard parts.count == 4 else { return nil }
        return ((parts[0] * 60 + parts[1]) * 60 + parts[2]) * 1000 + parts[3] * 100
    }
}
