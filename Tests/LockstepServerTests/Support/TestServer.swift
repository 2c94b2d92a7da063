import AsyncHTTPClient
import Foundation
import Prometheus
import Hummingbird
import LockstepCore
@testable import LockstepServer
import Logging
import NIOCore
import Synchronization

/// A real Lockstep server on 127.0.0.1 (a free port) over a real SQLite file in a fresh
/// temporary directory, with one app created; stopped and deleted by ``stop()``.
struct TestServer: Sendable {
    let services: LockstepServices
    let port: Int
    let app: AccountService.AppCredentials
    let directory: URL
    private let running: Task<Void, any Error>

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var appID: String { app.appID }

    /// Limits that keep tests quick: cheap password hashing, short waits.
    static var testLimits: Limits {
        var limits = Limits()
        limits.passwordHashCost = 1 << 10
        limits.changesLongPollSeconds = 2
        // Sockets that open no channel (clock exchanges, refused inits) may stay as long as a
        // test on a loaded machine takes; the tests of the init deadline set their own.
        limits.socketInitTimeoutSeconds = 60
        return limits
    }

    /// Starts a server; `configure` sets what ``LockstepServices`` has beyond its limits
    /// (trusted proxies, metrics access) before it listens.
    static func start(
        limits: Limits = testLimits, clockOffsetNanoseconds: Int64 = 0, store: (any SyncStore)? = nil, logger: Logger? = nil,
        releases: ReleaseService? = nil, blobDirectory: URL? = nil, jwksCertificateAuthorities: String? = nil,
        configure: (inout LockstepServices) -> Void = { _ in }
    ) async throws -> TestServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try store ?? SQLiteStore(path: directory.appendingPathComponent("lockstep.sqlite").path)
        let logger = logger ?? {
            var logger = Logger(label: "lockstep-test")
            logger.logLevel = .warning
            return logger
        }()
        var services = LockstepServices(
            store: store, limits: limits, clock: ServerClockSource(offsetNanoseconds: clockOffsetNanoseconds), logger: logger,
            blobDirectory: blobDirectory ?? directory.appendingPathComponent("blobs"), jwksCertificateAuthorities: jwksCertificateAuthorities)
        services.releases = releases
        // Every delivery paced, however few sockets it fills: a server paces only deliveries to
        // many (``DrainPacer/minimumFanOut``), which the suites' few sockets never are, and so
        // the suites' generated interleavings and cuts run through the paced path too.
        services.drainPacers = DrainPacers(lingerSeconds: limits.announcementLingerSeconds, minimumFanOut: 1)
        configure(&services)
        let app = try await services.accounts.createApp(name: "test")
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = LockstepServer.application(services: services, host: "127.0.0.1", port: 0) { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
            portContinuation.finish()
        }
        let running = Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            running.cancel()
            throw TestServerError.didNotStart
        }
        return TestServer(services: services, port: port, app: app, directory: directory, running: running)
    }

    func stop() async {
        running.cancel()
        _ = await running.result
        try? FileManager.default.removeItem(at: directory)
    }

    /// Creates a user through the HTTP API and returns their token.
    func createUser(_ username: String = "user-\(UUID().uuidString.prefix(8))@example.com", password: String = "secret") async throws -> UserSession {
        let response = try await request(
            "POST", "/1/\(appID)/create/", headers: ["X-Simperium-API-Key": app.apiKey],
            body: ["username": .string(username), "password": .string(password)])
        guard response.status == 200, let token = response.json?["access_token"]?.stringValue,
            let userID = response.json?["userid"]?.stringValue
        else { throw TestServerError.unexpected(response) }
        return UserSession(server: self, username: username, userID: userID, token: token)
    }

    /// One HTTP request with a JSON (or raw) body; the whole response comes back.
    func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: JSONValue? = nil, rawBody: [UInt8]? = nil,
        timeout: TimeAmount = .seconds(30)
    ) async throws -> TestResponse {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .RAW(value: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let bytes = rawBody ?? body?.jsonBytes {
            request.body = .bytes(ByteBuffer(bytes: bytes))
            if !request.headers.contains(name: "Content-Type") { request.headers.add(name: "Content-Type", value: "application/json") }
        }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let buffer = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return TestResponse(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Array(buffer.readableBytesView))
    }
}

/// A user signed in to a ``TestServer``: their requests carry their token.
struct UserSession: Sendable {
    let server: TestServer
    let username: String
    let userID: String
    let token: String

    func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: JSONValue? = nil, rawBody: [UInt8]? = nil
    ) async throws -> TestResponse {
        try await server.request(
            method, "/1/\(server.appID)/\(path)", headers: headers.merging(["X-Simperium-Token": token]) { $1 }, body: body,
            rawBody: rawBody)
    }
}

struct TestResponse: Sendable, CustomStringConvertible {
    let status: Int
    let headers: [(String, String)]
    let body: [UInt8]

    var json: JSONValue? { try? JSONValue(parsing: body) }
    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The message of a JSON error body, `{"error":{"message":…}}`.
    var errorMessage: String? { json?["error"]?["message"]?.stringValue }

    var description: String { "\(status) \(text)" }
}

enum TestServerError: Error {
    case didNotStart
    case unexpected(TestResponse)
}

extension TestServer {
    /// The value of a counter or gauge of the process's metrics registry (every test server in
    /// the process reports into the same one); 0 when it has not been reported yet.
    func metricValue(_ name: String) throws -> Double {
        var buffer: [UInt8] = []
        LockstepMetrics.registry.emit(into: &buffer)
        let line = String(decoding: buffer, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }
}
