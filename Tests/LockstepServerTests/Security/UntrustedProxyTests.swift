import Foundation
import LockstepServer
import Testing

/// A server reached through a proxy it was not told to trust says so, once, and what to do.
@Suite("Security: a proxy that is not trusted")
struct UntrustedProxyTests {
    @Test func forwardedRequestsFromAnUntrustedPeerAreReportedOnce() async throws {
        let capture = LogCapture()
        let server = try await TestServer.start(logger: capture.logger(level: .warning))
        defer { Task { await server.stop() } }
        for _ in 1...3 {
            #expect(try await server.request("GET", "/health", headers: ["X-Forwarded-For": "203.0.113.7"]).status == 200)
        }
        let warnings = capture.text.components(separatedBy: "requests from 127.0.0.1 carry X-Forwarded-For").count - 1
        #expect(warnings == 1, "\(capture.text)")
        #expect(capture.text.contains("--trusted-proxy 127.0.0.1"))
    }

    @Test func aTrustedProxyIsNotReported() async throws {
        let capture = LogCapture()
        let server = try await TestServer.start(logger: capture.logger(level: .warning)) { services in
            services.trustedProxies = TrustedProxies([AddressRange("127.0.0.1")!])
        }
        defer { Task { await server.stop() } }
        #expect(try await server.request("GET", "/health", headers: ["X-Forwarded-For": "203.0.113.7"]).status == 200)
        #expect(try await server.request("GET", "/health").status == 200)
        #expect(!capture.text.contains("X-Forwarded-For"), "\(capture.text)")
    }
}
