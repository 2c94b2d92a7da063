import ChildProcesses
import Foundation
import LockstepCore
import LockstepServer
import Testing
@testable import lockstep
@testable import lockstep_bench

/// `deploy/lockstep@.service` as shipped: systemd's own checker reads it, and its instances run
/// as the unit runs them, with nothing writable but its state directory.
@Suite("deploy/lockstep@.service")
struct SystemdUnitTests {
    static let unitPath = ExternalPaths.repositoryRoot.appendingPathComponent("deploy/lockstep@.service").path

    /// `systemd-analyze verify` of an instance finds nothing to say: every key is one systemd
    /// knows, every specifier and path is valid, and the program it starts is there.
    @Test func systemdFindsNothingWrongWithAnInstance() async throws {
        try requireTool("/usr/bin/systemd-analyze", "systemd")
        let unit = try SystemdUnit(path: Self.unitPath)
        let program = try #require(unit.value("ExecStart")?.split(separator: " ").first.map(String.init))
        let root = try scratchDirectory("lockstep-unit-root")
        defer { try? FileManager.default.removeItem(atPath: root) }
        // systemd's own units (the targets an instance is ordered after), ours, and an executable
        // where ours says the server is.
        let setUp = try await shell("""
            mkdir -p \(root)/usr/lib/systemd \(root)/etc/systemd/system \(root)$(dirname \(program))
            cp -r /usr/lib/systemd/system \(root)/usr/lib/systemd/
            cp \(ReadmeShellBlock.quoted(Self.unitPath)) \(root)/etc/systemd/system/
            cp /bin/true \(root)\(program)
            """)
        #expect(setUp.status == 0, "\(setUp.output)")
        let verified = try await shell("systemd-analyze verify --man=no --generators=no --root=\(root) lockstep@8080.service")
        #expect(verified.status == 0 && verified.output.isEmpty, "systemd-analyze says:\n\(verified.output)")
    }

    /// Two instances started at once on a new PostgreSQL schema, each with the unit's command
    /// line and environment (its `%i`, its environment files), in a mount namespace where the
    /// whole file system is read-only but the unit's state directory, as `ProtectSystem=strict`
    /// makes it: each listens on its instance's port, the two make one server key in the state
    /// directory and one default app between them, and what one takes the other serves.
    @Test(.timeLimit(.minutes(3)))
    func twoInstancesRunWithNothingWritableButTheStateDirectory() async throws {
        try requireTool("/usr/bin/unshare", "util-linux")
        let unit = try SystemdUnit(path: Self.unitPath)
        #expect(unit.value("ProtectSystem") == "strict")
        let stateDirectory = "/var/lib/" + (try #require(unit.value("StateDirectory")))
        let program = try #require(unit.value("ExecStart")?.split(separator: " ").first.map(String.init))
        let place = try ScratchSchema()
        defer { place.remove() }
        // The machine's paths the unit names, kept under a scratch root: /etc/lockstep, the
        // state directory. The server itself is the one just built.
        let root = try scratchDirectory("lockstep-unit")
        defer { try? FileManager.default.removeItem(atPath: root) }
        func placed(_ path: String) -> String { path == program ? LockstepTool.executable.path : root + path }
        try FileManager.default.createDirectory(atPath: placed(stateDirectory), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: placed("/etc/lockstep"), withIntermediateDirectories: true)
        // The settings the unit's notes give for nodes on PostgreSQL behind a proxy on this host.
        try "LOCKSTEP_DATABASE_URL=\(place.serveArguments[1])\nLOCKSTEP_TRUSTED_PROXIES=127.0.0.1\n"
            .write(toFile: placed("/etc/lockstep/lockstep.env"), atomically: true, encoding: .utf8)

        let ports = try [BenchProcesses.freePort(), BenchProcesses.freePort()]
        let nodes = try ports.map { port in
            try launchInstance(String(port), of: unit, placed: placed, writable: placed(stateDirectory))
        }
        defer { for node in nodes { node.kill() } }
        for (node, port) in zip(nodes, ports) {
            let listening = await node.next(startingWith: "Lockstep is listening on http://127.0.0.1:\(port),", within: .seconds(90))
            #expect(listening != nil, "\(node.transcript)")
        }
        let servers = zip(nodes, ports).map { ServerProcess(port: $1, tool: $0) }

        let key = placed(stateDirectory) + "/server.key"
        #expect(PrivateFiles.mode(of: key) == 0o600, "no server key in the state directory")
        let printed = nodes.filter { !$0.lines(startingWith: "Created the default app.").isEmpty }
        #expect(printed.count == 1, "\(printed.count) instances made a default app")
        let maker = try #require(printed.first)
        let app = try #require(maker.lines(startingWith: "  app id:").first?.split(separator: " ").last.map(String.init))
        let admin = try #require(maker.lines(startingWith: "  admin token:").first?.split(separator: " ").last.map(String.init))
        let token = try await servers[0].issueToken(app: app, admin: admin, username: "mover@example.com")
        #expect(try await servers[0].post("/1/\(app)/items/i/sofa", token: token, body: ["room": "lounge"]).status == 200)
        #expect(try await servers[1].objects("items", app: app, token: token) == ["sofa": ["room": "lounge"]])
    }

    /// Starts an instance as systemd would: the unit's command line and environment for
    /// `instance`, its paths `placed`, in a private mount namespace whose file system is
    /// read-only but `writable`.
    private func launchInstance(_ instance: String, of unit: SystemdUnit, placed: (String) -> String, writable: String) throws -> ToolProcess {
        let command = try #require(unit.value("ExecStart", instance: instance)).split(separator: " ").map { word in
            word.hasPrefix("/") ? placed(String(word)) : String(word)
        }
        var environment = try unit.environment(instance: instance, place: placed)
        for (name, value) in environment where value.hasPrefix("/") { environment[name] = placed(value) }
        environment["PATH"] = "/usr/bin:/bin"
        let script = """
            set -e
            mount --bind \(ReadmeShellBlock.quoted(writable)) \(ReadmeShellBlock.quoted(writable))
            mount -o remount,bind,ro /
            exec env -i \(environment.sorted { $0.key < $1.key }.map { ReadmeShellBlock.quoted("\($0)=\($1)") }.joined(separator: " ")) \
            \(command.map(ReadmeShellBlock.quoted).joined(separator: " "))
            """
        return try ToolProcess.launch(
            at: URL(fileURLWithPath: "/usr/bin/unshare"), name: "lockstep@\(instance)",
            arguments: ["--mount", "--propagation", "private", "/bin/bash", "-c", script])
    }

    /// Cancels the test, naming the package, when `path` is not installed (and fails it on CI).
    private func requireTool(_ path: String, _ package: String) throws {
        guard !FileManager.default.isExecutableFile(atPath: path) else { return }
        let reason = "\(path) is missing (Debian's \(package)), so the systemd unit was not checked"
        if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("\(reason) (and CI is set, where it must be)") }
        try Test.cancel(Comment(rawValue: reason))
    }

    private func scratchDirectory(_ prefix: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func shell(_ script: String) async throws -> (status: Int32, output: String) {
        let process = try ChildProcess.spawn("/bin/bash", arguments: ["-c", "set -e\n" + script], output: .captured)
        let (output, status) = try await onOwnThread { (process.readAllOutput(), process.waitUntilExit()) }
        return (status.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
