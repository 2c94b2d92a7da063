import ChildProcesses
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LockstepCore
import Testing

/// The README's operations notes for PostgreSQL, run as written against the shared test
/// database: the first start's words, and backing a live deployment up and restoring it with
/// PostgreSQL's own tools.
@Suite("README: operating on PostgreSQL")
struct PostgresOperationsTests {
    /// `pg_dump` while the server writes, more writes, then the restore with the node stopped:
    /// the server starts again on the restored schema, under the same key, with what the dump
    /// held and nothing after it; the password a user signed up with (sealed under the key)
    /// still signs them in.
    @Test(.timeLimit(.minutes(3)))
    func theReadmesBackupAndRestoreCommandsWorkAsWritten() async throws {
        let block = try ReadmeShellBlock(containing: "pg_dump")
        let place = try ScratchSchema()
        defer { place.remove() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-pgdump-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let values = ["PGURL": place.baseURL, "SCHEMA": place.schema]

        let server = try await ServerProcess.start(place.serveArguments)
        let credentials = try await server.credentials()
        let apiKey = try #require(server.tool.lines(startingWith: "  API key:").first?.split(separator: " ").last.map(String.init))
        let token = try await server.issueToken(app: credentials.app, admin: credentials.admin, username: "mover@example.com")
        #expect(try await server.post("/1/\(credentials.app)/__admin__/users", token: credentials.admin,
            body: ["username": "office@example.com", "password": "long enough secret"]).status == 201)
        #expect(try await server.post("/1/\(credentials.app)/items/i/sofa", token: token, body: ["room": "lounge"]).status == 200)
        #expect(try await server.post("/1/\(credentials.app)/items/i/lamp", token: token, body: ["room": "hall"]).status == 200)

        let dump = try await block.run(try block.command(running: "pg_dump"), with: values, in: directory)
        #expect(dump.status == 0, "\(dump.output)")
        #expect(try await server.post("/1/\(credentials.app)/items/i/sofa", token: token, body: ["room": "garage"]).status == 200)
        #expect(try await server.post("/1/\(credentials.app)/items/i/after", token: token, body: ["room": "attic"]).status == 200)
        server.kill()
        _ = await server.tool.exitStatus(within: .seconds(10))

        let restore = try await block.run(try block.command(running: "psql"), with: values, in: directory)
        #expect(restore.status == 0, "\(restore.output)")
        let restored = try await ServerProcess.start(place.serveArguments)
        defer { restored.kill() }
        #expect(try await restored.objects("items", app: credentials.app, token: token) == [
            "sofa": ["room": "lounge"], "lamp": ["room": "hall"],
        ])
        var signIn = URLRequest(url: URL(string: restored.baseURL + "/1/\(credentials.app)/authorize/")!)
        signIn.httpMethod = "POST"
        signIn.setValue(apiKey, forHTTPHeaderField: "X-Simperium-API-Key")
        signIn.httpBody = Data(#"{"username":"office@example.com","password":"long enough secret"}"#.utf8)
        let (_, answer) = try await URLSession.shared.data(for: signIn)
        #expect((answer as? HTTPURLResponse)?.statusCode == 200, "the restored password no longer signs in")
    }

    /// `lockstep backup` given a PostgreSQL URL is no mistake of the command line: no usage,
    /// but the `pg_dump` command for that database, which works as printed.
    @Test func backupOfAPostgreSQLStorePrintsTheDumpCommandThatWorks() async throws {
        let place = try ScratchSchema()
        defer { place.remove() }
        let server = try await ServerProcess.start(place.serveArguments)
        defer { server.kill() }
        let credentials = try await server.credentials()
        let token = try await server.issueToken(app: credentials.app, admin: credentials.admin, username: "mover@example.com")
        #expect(try await server.post("/1/\(credentials.app)/items/i/sofa", token: token, body: ["room": "lounge"]).status == 200)

        let refused = try await LockstepTool.run(["backup", "copy.sqlite"] + place.serveArguments)
        #expect(refused.status != 0)
        #expect(refused.output.hasPrefix("Error: this server stores its data in PostgreSQL"), "\(refused.output)")
        #expect(!refused.output.contains("USAGE") && !refused.output.contains("--help"), "\(refused.output)")
        #expect(!refused.output.contains(":\(place.password)@"), "the password is printed: \(refused.output)")
        let command = try #require(refused.output.split(separator: "\n").first { $0.hasPrefix("  pg_dump ") })

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-pgdump-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = try ChildProcess.spawn(
            "/bin/bash", arguments: ["-c", "cd \(ReadmeShellBlock.quoted(directory)) && \(command)"],
            environment: ["PGPASSWORD": place.password], output: .captured)
        let (output, status) = try await onOwnThread { (process.readAllOutput(), process.waitUntilExit()) }
        #expect(status.terminationStatus == 0, "\(command): \(String(decoding: output, as: UTF8.self))")
        let dumped = try String(contentsOfFile: directory + "/lockstep.sql", encoding: .utf8)
        #expect(dumped.contains("sofa") && dumped.contains("CREATE SCHEMA \(place.schema);"))

        let restoring = try await LockstepTool.run(["restore", "copy.sqlite"] + place.serveArguments)
        #expect(restoring.status != 0)
        #expect(restoring.output.contains("  psql ") && !restoring.output.contains("USAGE"), "\(restoring.output)")
    }

    /// The first start on PostgreSQL writes no file of credentials, and says so in words.
    @Test func theFirstStartOnPostgreSQLSaysItsCredentialsAreKeptInNoFile() async throws {
        let place = try ScratchSchema()
        defer { place.remove() }
        let server = try await ServerProcess.start(place.serveArguments)
        defer { server.kill() }
        _ = try await server.credentials()
        let said = try #require(server.tool.lines(startingWith: "Created the default app.").first)
        #expect(said == "Created the default app. Its credentials are shown once here, and kept in no file (the store is PostgreSQL): copy them now:")
    }
}

/// A fresh schema of the test database (`LOCKSTEP_TEST_POSTGRES_URL`) and a server key for it,
/// both removed by ``remove()``; the test is cancelled when no database is given (outside CI).
struct ScratchSchema {
    /// The database's URL as the environment gives it, without `?schema=`.
    let baseURL: String
    let schema: String
    let password: String
    let keyFile: String

    init() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["LOCKSTEP_TEST_POSTGRES_URL"], !url.isEmpty else {
            let reason = "LOCKSTEP_TEST_POSTGRES_URL is not set, so the PostgreSQL operations did not run"
            if environment["CI"] != nil { Issue.record("\(reason) (and CI is set, where it must be)") }
            try Test.cancel(Comment(rawValue: reason))
        }
        baseURL = url
        schema = "ops_" + UUID().uuidString.prefix(8).lowercased()
        password = URLComponents(string: url)?.password ?? ""
        keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-\(schema).key").path
    }

    /// `serve`'s options for this schema and key.
    var serveArguments: [String] {
        ["--database-url", baseURL + (baseURL.contains("?") ? "&" : "?") + "schema=" + schema, "--server-key-file", keyFile]
    }

    func remove() {
        let (schema, url, keyFile) = (schema, baseURL, keyFile)
        Task {
            await CrashStore.drop(schema: schema, url: url)
            try? FileManager.default.removeItem(atPath: keyFile)
        }
    }
}
