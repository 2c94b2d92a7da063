import AsyncHTTPClient
import Foundation
import Hummingbird
import LockstepCore
import LockstepServer
import Logging
import NIOCore

/// A real Lockstep server on 127.0.0.1 (a free port) over a real SQLite file in a fresh
/// temporary directory, with one app and one user; stopped and deleted by ``stop()``.
/// (A copy of the server tests' helper, trimmed: test targets cannot import each other.)
struct TestServer: Sendable {
    let services: LockstepServices
    let port: Int
    let app: AccountService.AppCredentials
    let directory: URL
    private let running: Task<Void, any Error>

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var appID: String { app.appID }

    static var testLimits: Limits {
        var limits = Limits()
        limits.passwordHashCost = 1 << 10
        limits.changesLongPollSeconds = 2
        return limits
    }

    /// Starts a server; with `directory`, `port` and `app`, starts again one that was stopped
    /// keeping its files (see ``restart()``).
    /// - Parameter clockOffset: How far ahead of this machine's clock the server's reads, in ns.
    static func start(
        limits: Limits = testLimits, directory: URL? = nil, port: Int = 0, app existing: AccountService.AppCredentials? = nil,
        clockOffset: Int64 = 0
    ) async throws -> TestServer {
        let directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: directory.appendingPathComponent("lockstep.sqlite").path)
        var logger = Logger(label: "lockstep-test")
        logger.logLevel = .warning
        let services = LockstepServices(
            store: store, limits: limits, clock: ServerClockSource(offsetNanoseconds: clockOffset), logger: logger,
            blobDirectory: directory.appendingPathComponent("blobs"))
        let app = if let existing { existing } else { try await services.accounts.createApp(name: "test") }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = LockstepServer.application(services: services, host: "127.0.0.1", port: port) { channel in
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

    func stop(keepingFiles: Bool = false) async {
        running.cancel()
        _ = await running.result
        if !keepingFiles { try? FileManager.default.removeItem(at: directory) }
    }

    /// The same server again, after ``stop(keepingFiles:)``: same port, database, app and users.
    func restart() async throws -> TestServer {
        try await TestServer.start(directory: directory, port: port, app: app)
    }

    /// Issues a token for a new user.
    func createUser(_ username: String = "user-\(UUID().uuidString.prefix(8))@example.com") async throws -> String {
        try await services.accounts.issueToken(appID: appID, username: username).accessToken
    }

    /// One HTTP request as `token`, under `/1/<app>/`; the status and parsed JSON body.
    func request(_ method: String, _ path: String, token: String, body: JSONValue? = nil) async throws -> (status: Int, json: JSONValue?) {
        var request = HTTPClientRequest(url: "\(baseURL.absoluteString)/1/\(appID)/\(path)")
        request.method = .RAW(value: method)
        request.headers.add(name: "X-Simperium-Token", value: token)
        if let body { request.body = .bytes(ByteBuffer(bytes: body.jsonBytes)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let buffer = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return (Int(response.status.code), try? JSONValue(parsing: Array(buffer.readableBytesView)))
    }

    /// Every live object of a bucket as the server holds it.
    func objects(_ bucket: String, token: String) async throws -> [String: JSONObject] {
        var result: [String: JSONObject] = [:]
        var mark: String?
        repeat {
            let (status, json) = try await request(
                "GET", "\(bucket)/index?data=1&limit=1000" + (mark.map { "&mark=\($0)" } ?? ""), token: token)
            guard status == 200, let json else { throw TestServerError.unexpected(status) }
            for entry in json["index"]?.arrayValue ?? [] {
                result[entry["id"]?.stringValue ?? ""] = entry["d"]?.objectValue ?? [:]
            }
            mark = json["mark"]?.stringValue
        } while mark != nil
        return result
    }
}

enum TestServerError: Error {
    case didNotStart
    case unexpected(Int)
}
