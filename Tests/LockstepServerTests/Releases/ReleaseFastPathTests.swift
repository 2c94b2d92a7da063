import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// A window or key already computed is answered on the event loop (``ReleaseFastPath``) with
/// what Hummingbird's route answers, in request order, and only when it may be.
@Suite("Releases over HTTP: windows and keys answered at hand")
struct ReleaseFastPathTests {
    static let path = "/releases/main/windows/\(ReleaseFixtures.minute)"

    @Test func aComputedWindowIsAnsweredAtHandAsTheRouteAnswersIt() async throws {
        let clock = ManualClock(milliseconds: ReleaseFixtures.minute + 12_345)
        let releases = try ReleaseFixtures.service(now: clock.now)
        let server = try await TestServer.start(releases: releases)
        defer { Task { await server.stop() } }
        let first = try await server.request("GET", Self.path)
        #expect(releases.answeredAtHand.load(ordering: .relaxed) == 0, "the first request computes the window in the route")
        let second = try await server.request("GET", Self.path)
        #expect(releases.answeredAtHand.load(ordering: .relaxed) == 1)
        #expect(second.status == 200 && first.status == 200)
        #expect(second.body == first.body)
        for name in ["ETag", "Cache-Control", "Content-Type", "Content-Length"] {
            #expect(second.header(name) == first.header(name), "\(name)")
        }

        let etag = try #require(first.header("ETag"))
        let unchanged = try await server.request("GET", Self.path, headers: ["If-None-Match": "\"other\", \(etag)"])
        #expect(unchanged.status == 304 && unchanged.body.isEmpty && unchanged.header("ETag") == etag)
        #expect(releases.answeredAtHand.load(ordering: .relaxed) == 2)

        // Its time over, the window is refused by the route, with its reason, as before.
        clock.set(milliseconds: ReleaseFixtures.minute + 600_000)
        let over = try await server.request("GET", Self.path)
        #expect(over.status == 410 && over.json?["error"]?["reason"]?.stringValue == "expired")
        #expect(releases.answeredAtHand.load(ordering: .relaxed) == 2)
    }

    /// A key is answered at hand once its hour's chain is computed, and never before its
    /// release: the chain holds the hour's later keys too, and those stay the route's 404.
    @Test func aReleasedKeyIsAnsweredAtHandAndALaterOneIsNot() async throws {
        let clock = ManualClock(milliseconds: ReleaseFixtures.minute + 12_345)
        let releases = try ReleaseFixtures.service(now: clock.now)
        let server = try await TestServer.start(releases: releases)
        defer { Task { await server.stop() } }
        let released = "/releases/main/keys/\(ReleaseFixtures.minute + 12_000)"
        let first = try await server.request("GET", released)
        #expect(releases.answeredAtHand.load(ordering: .relaxed) == 0, "the first request computes the chain in the route")
        let second = try await server.request("GET", released)
        #expect(releases.answeredAtHand.load(ordering: .relaxed) == 1)
        #expect(first.status == 200 && second.status == 200 && second.body == first.body)
        for name in ["Cache-Control", "Content-Type", "Content-Length"] {
            #expect(second.header(name) == first.header(name), "\(name)")
        }
        #expect(second.header("ETag") == nil)

        let later = try await server.request("GET", "/releases/main/keys/\(ReleaseFixtures.minute + 13_000)")
        #expect(later.status == 404 && later.json?["error"]?["reason"]?.stringValue == "not_released")
        let latest = try await server.request("GET", "/releases/main/keys/latest")
        #expect(latest.status == 200 && latest.body == first.body && latest.header("Cache-Control") == "public, max-age=1")
        #expect(releases.answeredAtHand.load(ordering: .relaxed) == 2)
    }

    /// Pipelined on one connection, a request for the route and one for a window at hand are
    /// answered in the order they were sent, whichever comes first.
    @Test(.timeLimit(.minutes(1))) func pipelinedRequestsAreAnsweredInOrder() async throws {
        let clock = ManualClock(milliseconds: ReleaseFixtures.minute + 12_345)
        let releases = try ReleaseFixtures.service(now: clock.now)
        let server = try await TestServer.start(releases: releases)
        defer { Task { await server.stop() } }
        #expect(try await server.request("GET", Self.path).status == 200)
        let connection = try RawConnection.open(port: server.port)
        defer { connection.close() }
        let manifest = "GET /releases HTTP/1.1\r\nHost: lockstep\r\n\r\n"
        let window = "GET \(Self.path) HTTP/1.1\r\nHost: lockstep\r\n\r\n"
        #expect(connection.send(manifest + window + manifest + "GET /releases HTTP/1.1\r\nHost: lockstep\r\nConnection: close\r\n\r\n"))
        let received = try await connection.receiveUntilClosed(within: .seconds(20))
        let kinds = received.text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { response in
            response.contains("\"windowMs\"") ? "manifest" : response.contains("\"slots\"") ? "window" : "other: \(response.prefix(200))"
        }
        #expect(kinds == ["manifest", "window", "manifest", "manifest"])
        // The window followed a request let through, so it waited for that one's answer; it
        // was still answered at hand once that answer had ended, or by the route: either way
        // in its place.
    }
}
