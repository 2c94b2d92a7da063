import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LockstepCore
import Logging
import PostgresNIO
import Testing
@testable import lockstep
@testable import lockstep_bench

/// Where a crash test's server keeps its data across restarts: a SQLite data directory, or a
/// PostgreSQL schema (dropped at the end).
enum CrashStore: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The `serve` options for a fresh place of this kind, and how to remove it afterwards.
    func place() throws -> (arguments: [String], remove: @Sendable () async -> Void) {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-crash-\(UUID().uuidString)").path
            return (["--data-dir", directory], { try? FileManager.default.removeItem(atPath: directory) })
        case .postgres:
            let environment = ProcessInfo.processInfo.environment
            guard let url = environment["LOCKSTEP_TEST_POSTGRES_URL"], !url.isEmpty else {
                let reason = "LOCKSTEP_TEST_POSTGRES_URL is not set, so the crash test did not run on PostgreSQL"
                if environment["CI"] != nil { Issue.record("\(reason) (and CI is set, where it must be)") }
                try Test.cancel(Comment(rawValue: reason))
            }
            let schema = "crash_" + UUID().uuidString.prefix(8).lowercased()
            let schemaURL = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
            // The key the schema's secrets are sealed with, for every start of the server.
            let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-crash-\(schema).key").path
            return (["--database-url", schemaURL, "--server-key-file", keyFile], {
                await Self.drop(schema: schema, url: url)
                try? FileManager.default.removeItem(atPath: keyFile)
            })
        }
    }

    static func drop(schema: String, url: String) async {
        guard let components = URLComponents(string: url), let host = components.host else { return }
        let logger = Logger(label: "crash-test")
        guard let connection = try? await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: host, port: components.port ?? 5432, username: components.user ?? "postgres", password: components.password,
                database: String(components.path.dropFirst()), tls: .disable),
            id: 1, logger: logger)
        else { return }
        _ = try? await connection.query("DROP SCHEMA IF EXISTS \(unescaped: "\"\(schema)\"") CASCADE", logger: logger)
        try? await connection.close()
    }
}

/// `lockstep serve` in a child process, killed and started again on the same data.
final class ServerProcess: Sendable {
    let port: Int
    let tool: ToolProcess
    /// The processes of the start's earlier attempts, which lost their port: the first of them
    /// created the default app on the data and printed its credentials, which the later ones,
    /// finding the app there, do not print again.
    private let lostAttempts: [ToolProcess]

    init(port: Int, tool: ToolProcess, lostAttempts: [ToolProcess] = []) {
        self.port = port
        self.tool = tool
        self.lostAttempts = lostAttempts
    }

    /// Starts a server on `storeArguments` (and any `options` of `serve`), and waits until it answers.
    /// Without a `port`, each attempt listens on one that `freePort` finds.
    static func start(
        _ storeArguments: [String], port: Int? = nil, options: [String] = [], freePort: () throws -> Int = BenchProcesses.freePort
    ) async throws -> ServerProcess {
        var attempts = 0
        var lost: [ToolProcess] = []
        while true {
            attempts += 1
            let chosen = try port ?? freePort()
            let tool = try ToolProcess.launch(
                "lockstep", name: "server",
                arguments: ["serve", "--host", "127.0.0.1", "--port", String(chosen), "--log-level", "error", "--messages-per-second", "0",
                    "--changes-per-second", "0", "--http-requests-per-second", "0"] + options + storeArguments)
            let server = ServerProcess(port: chosen, tool: tool, lostAttempts: lost)
            // Its own line as well as an answer on the port: a port free when chosen may be
            // taken by another test's server before this one binds it, and that one answers
            // /health too (a CI run's simperium3 then signed up on the wrong server: 404, no
            // such app). A server that lost its port exits, and another port is tried.
            let listening = "Lockstep is listening on http://127.0.0.1:\(chosen),"
            // Generous: the whole suite runs beside it, on two cores.
            for _ in 0..<1200 {
                if !tool.lines(startingWith: listening).isEmpty, (try? await server.get("/health").status) == 200 { return server }
                if port == nil, attempts < 5, await tool.exitStatus(within: .zero) != nil { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            guard await tool.exitStatus(within: .zero) != nil, port == nil, attempts < 5 else {
                tool.kill()
                throw CrashTestError.didNotStart(tool.transcript)
            }
            lost.append(tool)
        }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func kill() { tool.kill() }

    /// The default app's id and admin token, from what a fresh server prints.
    func credentials() async throws -> (app: String, admin: String) {
        let printed = lostAttempts.first { !$0.lines(startingWith: "  app id:").isEmpty } ?? tool
        guard let app = await printed.next(startingWith: "  app id:", within: .seconds(10)),
            let admin = await printed.next(startingWith: "  admin token:", within: .seconds(10)),
            let appID = app.split(separator: " ").last, let adminToken = admin.split(separator: " ").last
        else { throw CrashTestError.noCredentials((lostAttempts + [tool]).map(\.transcript).joined(separator: "\n")) }
        return (String(appID), String(adminToken))
    }

    /// A token for a new user `username` of `app`, issued with the app's admin token.
    func issueToken(app: String, admin: String, username: String) async throws -> String {
        let answer = try await post("/1/\(app)/token", token: admin, body: ["username": .string(username)])
        guard let token = answer.json?["access_token"]?.stringValue else { throw CrashTestError.noCredentials("\(answer)") }
        return token
    }

    /// Every object of `bucket`, read page by page.
    func objects(_ bucket: String, app: String, token: String) async throws -> [String: JSONObject] {
        var objects: [String: JSONObject] = [:]
        var mark: String?
        repeat {
            let page = try #require(try await get(
                "/1/\(app)/\(bucket)/index?data=1&limit=1000" + (mark.map { "&mark=\($0)" } ?? ""), token: token).json)
            for entry in page["index"]?.arrayValue ?? [] {
                objects[try #require(entry["id"]?.stringValue)] = entry["d"]?.objectValue
            }
            mark = page["mark"]?.stringValue
        } while mark != nil
        return objects
    }

    func get(_ path: String, token: String? = nil) async throws -> (status: Int, json: JSONValue?) {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        if let token { request.setValue(token, forHTTPHeaderField: "X-Simperium-Token") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONValue(parsing: Array(data)))
    }

    func post(_ path: String, token: String, body: JSONValue) async throws -> (status: Int, json: JSONValue?) {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = "POST"
        request.setValue(token, forHTTPHeaderField: "X-Simperium-Token")
        request.httpBody = Data(body.jsonBytes)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONValue(parsing: Array(data)))
    }
}

enum CrashTestError: Error {
    case didNotStart(String)
    case noCredentials(String)
}
