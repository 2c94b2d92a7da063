import CommandLineSupport
import Foundation
import LockstepCore
import LockstepServer
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server a benchmark's clients talk to: one started in this process on 127.0.0.1 over a
/// temporary SQLite file, or one already running.
struct BenchTarget: Sendable {
    /// The server's HTTP base URL and the app's id.
    let baseURL: String
    let app: String
    /// The streaming socket's URL.
    let socketURL: String
    /// A user's access token.
    let token: String
    /// The app's admin token, for setting the benchmark up over HTTP (users, spaces).
    let adminToken: String
    /// For the report: where the server runs and stores.
    let description: String
    /// Makes a bucket shared by every user of the app.
    let shareBucket: @Sendable (String) async throws -> Void
    let stop: @Sendable () async -> Void

    /// Starts a server in this process over a fresh SQLite file, with `limits` (the defaults
    /// unless given) but for the per-address connection cap and request rate (every benchmark
    /// client connects from 127.0.0.1, and the admin token sets thousands of spaces up) and the
    /// spaces a user may be a member of.
    static func inProcess(limits: Limits = Limits()) async throws -> BenchTarget {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("lockstep.sqlite").path
        var logger = Logger(label: "lockstep-bench")
        logger.logLevel = .warning
        var limits = limits
        limits.maximumConnectionsPerAddress = 0
        limits.maximumSpacesPerUser = 0
        limits.httpRequestsPerSecond = 0
        let services = LockstepServices(store: try SQLiteStore(path: path), limits: limits, clock: ServerClockSource(), logger: logger)
        let app = try await services.accounts.createApp(name: "bench")
        let grant = try await services.accounts.issueToken(appID: app.appID, username: "bench")
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = LockstepServer.application(services: services, host: "127.0.0.1", port: 0) { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
            portContinuation.finish()
        }
        let running = Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            running.cancel()
            throw CommandError("the in-process server did not start")
        }
        return BenchTarget(
            baseURL: "http://127.0.0.1:\(port)", app: app.appID,
            socketURL: "ws://127.0.0.1:\(port)/sock/1/\(app.appID)/websocket", token: grant.accessToken, adminToken: app.adminToken,
            description: "a server in this process on 127.0.0.1:\(port), SQLite at \(path)",
            shareBucket: { bucket in
                try await services.setOptions(appID: app.appID, bucket: bucket, options: ["shared": true])
            },
            stop: {
                running.cancel()
                _ = await running.result
                try? FileManager.default.removeItem(at: directory)
            })
    }

    /// Uses a running server: the app's admin token issues a user's token and shares buckets.
    static func remote(url: String, app: String, adminToken: String) async throws -> BenchTarget {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        let grant = try await post("\(base)/1/\(app)/token", adminToken: adminToken, body: ["username": "bench"])
        guard let token = grant["access_token"]?.stringValue else { throw CommandError("the server issued no token: \(grant)") }
        return BenchTarget(
            baseURL: base, app: app,
            socketURL: try StreamingSocketURL.make(base: base, app: app), token: token, adminToken: adminToken, description: "the server at \(base)",
            shareBucket: { bucket in
                _ = try await post("\(base)/1/\(app)/__options__/i/\(bucket)", adminToken: adminToken, body: ["shared": true])
            },
            stop: {})
    }

    /// A request to the app's HTTP API (`path` after `/1/<app>/`) with the admin token; throws
    /// unless the answer is 2xx.
    @discardableResult
    func admin(_ path: String, body: JSONValue) async throws -> JSONValue {
        try await Self.post("\(baseURL)/1/\(app)/\(path)", adminToken: adminToken, body: body)
    }

    private static func post(_ url: String, adminToken: String, body: JSONValue) async throws -> JSONValue {
        guard let address = URL(string: url) else { throw CommandError("\(url) is not a URL") }
        var request = URLRequest(url: address)
        request.httpMethod = "POST"
        request.setValue(adminToken, forHTTPHeaderField: "X-Simperium-Token")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.jsonBytes)
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
            throw CommandError("POST \(url) failed: \(String(decoding: data, as: UTF8.self))")
        }
        return try JSONValue(parsing: Array(data))
    }
}
