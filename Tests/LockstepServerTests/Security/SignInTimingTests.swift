import Foundation
import LockstepCore
import LockstepServer
import Testing

/// How long `authorize/` takes must not tell which names have accounts.
@Suite("Security: sign-in timing", .timeLimit(.minutes(2)))
struct SignInTimingTests {
    @Test func anUnknownNameCostsWhatAKnownOneDoes() async throws {
        var limits = TestServer.testLimits
        // A hash that takes tens of milliseconds, so it dwarfs everything else a request does.
        limits.passwordHashCost = 1 << 14
        limits.passwordAttemptsPerMinute = 1000
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        _ = try await server.createUser("known@example.com", password: "right")
        _ = try await server.request(
            "POST", "/1/\(server.appID)/token/", headers: ["X-Simperium-Token": server.app.adminToken], body: ["username": "issued"])
        var known: [Duration] = []
        var unknown: [Duration] = []
        var passwordless: [Duration] = []
        // Interleaved, so that whatever else the machine does weighs on all three alike.
        for round in 0..<7 {
            for (name, times) in [("known@example.com", 0), ("nobody-\(round)@example.com", 1), ("issued", 2)] {
                let started = ContinuousClock.now
                #expect(try await server.authorizeStatus(name, "wrong") == 401)
                let took = ContinuousClock.now - started
                switch times {
                case 0: known.append(took)
                case 1: unknown.append(took)
                default: passwordless.append(took)
                }
            }
        }
        let knownMedian = Self.median(known)
        for (what, times) in [("an unknown name", unknown), ("a user without a password", passwordless)] {
            let ratio = Self.median(times) / knownMedian
            #expect(ratio > 0.5 && ratio < 2, "\(what) took \(Self.median(times)), a known name \(knownMedian)")
        }
    }

    static func median(_ durations: [Duration]) -> Duration {
        durations.sorted()[durations.count / 2]
    }
}
