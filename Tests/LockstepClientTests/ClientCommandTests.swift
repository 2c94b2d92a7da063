import ChildProcesses
import Foundation
import LockstepClient
import LockstepCore
import Testing

/// Runs the built `lockstep` tool as a separate process, as a script would.
enum LockstepTool {
    static var executable: URL {
        let build = ExternalPaths.repositoryRoot.appendingPathComponent(".build")
        for configuration in ["debug", "release"] {
            let candidate = build.appendingPathComponent(configuration).appendingPathComponent("lockstep")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return build.appendingPathComponent("debug/lockstep")
    }

    static func launch(_ arguments: [String], program: String = "lockstep") throws -> ChildProcess {
        try ChildProcess.spawn(executable.deletingLastPathComponent().appendingPathComponent(program).path, arguments: arguments, output: .captured)
    }

    /// Runs `program` (one of the package's executables) to completion; the exit status and everything printed.
    static func run(_ arguments: [String], program: String = "lockstep") async throws -> (status: Int32, output: String) {
        let process = try launch(arguments, program: program)
        let (output, status) = try await onOwnThread { (process.readAllOutput(), process.waitUntilExit()) }
        return (status.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

@Suite("lockstep client")
struct ClientCommandTests {
    @Test("each subcommand's --help is its own; without --store a subcommand says what is missing")
    func subcommandHelp() async throws {
        for (subcommand, abstract) in [("sync", "Sync the store's buckets"), ("put", "Store a JSON object locally")] {
            let result = try await LockstepTool.run(["client", subcommand, "--help"])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains(abstract) && result.output.contains("lockstep client \(subcommand)"), "\(result.output)")
        }
        let missing = try await LockstepTool.run(["client", "list", "notes"])
        #expect(missing.status != 0)
        #expect(missing.output.contains("--store DIR is required"), "\(missing.output)")
    }

    @Test("put works with no server, survives a killed process, and syncs later")
    func putOfflineThenSync() async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let store = temporaryStore()
        defer { removeStore(store) }
        let nowhere = ["--store", store.path, "--url", "http://127.0.0.1:9", "--app", server.appID, "--token", token]
        let online = ["--store", store.path, "--url", server.baseURL.absoluteString, "--app", server.appID, "--token", token]

        var result = try await LockstepTool.run(["client"] + nowhere + ["put", "notes", "a", #"{"title":"first"}"#])
        #expect(result.status == 0, "\(result.output)")
        result = try await LockstepTool.run(["client"] + nowhere + ["put", "--urgent", "notes", "b", #"{"title":"second"}"#])
        #expect(result.status == 0, "\(result.output)")
        result = try await LockstepTool.run(["client"] + nowhere + ["status"])
        #expect(result.output.contains("2 pending"), "\(result.output)")

        // A sync that cannot reach the server, killed mid-flight: the outbox must survive.
        let syncing = try LockstepTool.launch(["client"] + nowhere + ["sync"])
        try await Task.sleep(for: .milliseconds(500))
        syncing.send(SIGKILL)
        _ = await syncing.waitForExit()

        result = try await LockstepTool.run(["client"] + nowhere + ["get", "notes", "a"])
        #expect(result.output.contains(#""title":"first""#), "\(result.output)")
        result = try await LockstepTool.run(["client"] + online + ["sync", "--once", "--timeout", "30"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("synced; 0 pending"), "\(result.output)")
        #expect(try await server.objects("notes", token: token) == ["a": ["title": "first"], "b": ["title": "second"]])

        result = try await LockstepTool.run(["client"] + online + ["list", "notes"])
        let listed: [String] = result.output.split(separator: "\n").map { line in String(line.prefix { $0 != "\t" }) }
        #expect(listed == ["a", "b"])
        result = try await LockstepTool.run(["client"] + online + ["delete", "notes", "a"])
        #expect(result.status == 0, "\(result.output)")
        result = try await LockstepTool.run(["client"] + online + ["sync", "--once"])
        #expect(result.status == 0, "\(result.output)")
        #expect(try await server.objects("notes", token: token).keys.sorted() == ["b"])
        await server.stop()
    }

    /// A sync that succeeds says what arrived and that it is done, and nothing else: stopping
    /// the socket on the way out is not an error to log (it logged `socket: CancellationError()`).
    @Test("sync --once prints what arrived and its summary, and logs nothing")
    func aCleanSyncLogsNothing() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.createUser()
        let store = temporaryStore()
        defer { removeStore(store) }
        let online = ["--store", store.path, "--url", server.baseURL.absoluteString, "--app", server.appID, "--token", token]
        #expect(try await server.request("POST", "notes/i/remote", token: token, body: ["title": "from elsewhere"]).status == 200)
        #expect(try await LockstepTool.run(["client"] + online + ["put", "notes", "local", #"{"title":"here"}"#]).status == 0)

        let result = try await LockstepTool.run(["client"] + online + ["sync", "--once", "--timeout", "30"])
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.last == "synced; 0 pending", "\(result.output)")
        #expect(lines.contains { $0.contains("notes/remote") }, "\(result.output)")
        let others = lines.dropLast().filter { !$0.contains("\tnotes/") }
        #expect(others.isEmpty, "a clean sync printed more than its events and summary:\n\(others.joined(separator: "\n"))")
    }
}
