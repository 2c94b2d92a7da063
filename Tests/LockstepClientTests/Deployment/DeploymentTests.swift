import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LockstepClient
import LockstepCore
import Testing

/// The deployment `deploy/` describes, run for real: PostgreSQL, two `lockstep serve` nodes and
/// Debian's nginx with the shipped configuration, on loopback (issue 20).
@Suite("Deployment: two nodes behind nginx", .serialized)
struct DeploymentTests {
    static let bucket = "jobs"

    /// Two nodes on one fresh PostgreSQL schema, each trusting the proxy's X-Forwarded-For, and nginx in front.
    struct Deployment {
        var nodes: [ServerProcess]
        var nginx: NginxProxy
        var app: String
        var apiKey: String
        var admin: String
        var remove: @Sendable () async -> Void

        static func start() async throws -> Deployment {
            try NginxProxy.requireInstalled()
            let (arguments, remove) = try CrashStore.postgres.place()
            let options = ["--trusted-proxy", "127.0.0.1", "--heartbeat-timeout-seconds", "4"]
            let first = try await ServerProcess.start(arguments, options: options)
            let (app, admin) = try await first.credentials()
            let apiKey = try #require(first.tool.lines(startingWith: "  API key:").first?.split(separator: " ").last.map(String.init))
            let second = try await ServerProcess.start(arguments, options: options)
            let nginx = try await NginxProxy.start(before: [first.port, second.port])
            return Deployment(nodes: [first, second], nginx: nginx, app: app, apiKey: apiKey, admin: admin, remove: remove)
        }

        func stop() async {
            nginx.stop()
            for node in nodes { node.kill() }
            await remove()
        }

        /// Runs `body` on a fresh deployment, and stops it however `body` ends.
        static func run(_ body: (Deployment) async throws -> Void) async throws {
            let deployment = try await start()
            do {
                try await body(deployment)
            } catch {
                await deployment.stop()
                throw error
            }
            await deployment.stop()
        }

        func client(store: URL, server: String, token: String) throws -> LockstepClient {
            var configuration = LockstepClient.Configuration(
                heartbeatInterval: .seconds(1), backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)))
            configuration.logger.logLevel = .critical
            return try LockstepClient(storeDirectory: store, server: URL(string: server)!, app: app, token: token, configuration: configuration)
        }
    }

    @Test("an unmodified Simperium client (simperium3) works through nginx")
    func simperiumClientThroughNginx() async throws {
        try await Deployment.run { deployment in
        let script = ExternalPaths.repositoryRoot.appendingPathComponent("Tests/Compat/simperium3_client.py").path
        let run = try ToolProcess.launch(
            at: URL(fileURLWithPath: "/usr/bin/env"), name: "simperium3",
            arguments: ["LOCKSTEP_HOST=127.0.0.1:\(deployment.nginx.port)", "LOCKSTEP_APP=\(deployment.app)",
                "LOCKSTEP_API_KEY=\(deployment.apiKey)", "LOCKSTEP_ADMIN_TOKEN=\(deployment.admin)", "python3", script])
        let status = await run.exitStatus(within: .seconds(120))
        #expect(status == 0, "\(run.transcript)")
        }
    }

    @Test("a write through one node reaches a streaming client of the other; through nginx, both")
    func writesCrossNodes() async throws {
        try await Deployment.run { deployment in
        let token = try await deployment.nodes[0].issueToken(app: deployment.app, admin: deployment.admin, username: "mover@example.com")
        let stores = [temporaryStore(), temporaryStore(), temporaryStore()]
        defer { stores.forEach(removeStore) }
        let servers = [deployment.nodes[0].baseURL, deployment.nodes[1].baseURL, deployment.nginx.baseURL]
        let clients = try (0..<3).map { try deployment.client(store: stores[$0], server: servers[$0], token: token) }
        for client in clients { await client.sync.start() }
        let jobs = try clients.map { try $0.bucket(Self.bucket) }
        for (index, bucket) in jobs.enumerated() { try await bucket.put("from-\(index)", ["by": .integer(Int64(index))]) }
        try await eventually("every client holds every write", timeout: .seconds(30)) {
            try jobs.allSatisfy { bucket in try (0..<3).allSatisfy { try bucket.get("from-\($0)") != nil } }
        }
        for client in clients { await client.close() }
        }
    }

    @Test("SIGKILL of a node: its streaming clients reconnect through nginx to the other and no acknowledged change is lost")
    func failover() async throws {
        try await Deployment.run { deployment in
        let token = try await deployment.nodes[0].issueToken(app: deployment.app, admin: deployment.admin, username: "crew@example.com")
        let count = 6
        let stores = (0..<count).map { _ in temporaryStore() }
        defer { stores.forEach(removeStore) }
        let clients = try stores.map { try deployment.client(store: $0, server: deployment.nginx.baseURL, token: token) }
        let jobs = try clients.map { try $0.bucket(Self.bucket) }
        for client in clients { await client.sync.start() }
        // Where nginx put each socket is up to it: the node holding the most of them is killed.
        var open: [Int] = []
        try await eventually("every client's socket is open", timeout: .seconds(30)) {
            open = [try await Self.openSockets(on: deployment.nodes[0]), try await Self.openSockets(on: deployment.nodes[1])]
            return open.reduce(0, +) == count
        }
        let victim = open[0] >= open[1] ? 0 : 1

        // Every client writes its own objects, before, during and after the kill.
        let writes = 30
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, bucket) in jobs.enumerated() {
                group.addTask {
                    for step in 0..<writes {
                        try await bucket.put("c\(index)-\(step % 10)", ["client": .integer(Int64(index)), "step": .integer(Int64(step))])
                        try await Task.sleep(for: .milliseconds(40))
                    }
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(400))
                deployment.nodes[victim].kill()
            }
            try await group.waitForAll()
        }
        for client in clients { try await client.sync.waitUntilIdle() }

        // What the surviving node holds: each client's last write of each object, nothing missing.
        let survivor = deployment.nodes[1 - victim]
        let held = try await survivor.objects(Self.bucket, app: deployment.app, token: token)
        for index in 0..<count {
            for slot in 0..<10 {
                let last = (0..<writes).last { $0 % 10 == slot }!
                #expect(held["c\(index)-\(slot)"]?["step"] == .integer(Int64(last)), "client \(index), object \(slot): \(String(describing: held["c\(index)-\(slot)"]))")
            }
        }
        // And every client, reconnected, holds what the survivor holds.
        try await eventually("every client holds what the surviving node holds", timeout: .seconds(30)) {
            try jobs.allSatisfy { bucket in
                Dictionary(uniqueKeysWithValues: try bucket.list().map { ($0.key, $0.object) }) == held
            }
        }
        for client in clients { #expect(try client.outbox.pending.isEmpty) }
        for client in clients { await client.close() }
        }
    }

    /// The node's `lockstep_socket_connections` gauge, from `/metrics`.
    static func openSockets(on node: ServerProcess) async throws -> Int {
        let (data, _) = try await URLSession.shared.data(from: URL(string: node.baseURL + "/metrics")!)
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("lockstep_socket_connections ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }
}

