import AsyncHTTPClient
import Foundation
import Hummingbird
import LockstepServer
import Logging
import NIOCore
import Testing

/// `/metrics` is open by default, and can be closed behind a token or moved to a listener of its own.
@Suite("Security: metrics access", .timeLimit(.minutes(2)))
struct MetricsAccessTests {
    @Test func openByDefault() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        #expect(try await server.request("GET", "/metrics").status == 200)
    }

    @Test func aBearerTokenCanBeRequired() async throws {
        let server = try await TestServer.start { $0.metrics = MetricsAccess(bearerToken: "scrape-secret") }
        defer { Task { await server.stop() } }
        #expect(try await server.request("GET", "/metrics").status == 401)
        #expect(try await server.request("GET", "/metrics", headers: ["Authorization": "Bearer wrong"]).status == 401)
        let allowed = try await server.request("GET", "/metrics", headers: ["Authorization": "Bearer scrape-secret"])
        #expect(allowed.status == 200)
        #expect(allowed.text.contains("lockstep_") || allowed.text.contains("hb_"), "\(allowed.text.prefix(200))")
    }

    @Test func aListenerOfItsOwn() async throws {
        let access = MetricsAccess(bearerToken: nil, onMainListener: false)
        let server = try await TestServer.start { $0.metrics = access }
        defer { Task { await server.stop() } }
        #expect(try await server.request("GET", "/metrics").status == 404)
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "metrics-test")
        logger.logLevel = .warning
        let metrics = LockstepServer.metricsApplication(access: access, host: "127.0.0.1", port: 0, logger: logger) { channel in
            listening.yield(channel.localAddress?.port ?? 0)
            listening.finish()
        }
        let running = Task { try await metrics.run() }
        defer { running.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(10))
        #expect(response.status.code == 200)
        let other = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/health"), timeout: .seconds(10))
        #expect(other.status.code == 404, "the metrics listener serves nothing else")
    }
}
