import Foundation
@testable import LockstepClient
import LockstepCore
import Testing
@testable import lockstep

/// Where a convergence run's server keeps its data.
enum ConvergenceBackend: String, Sendable, CustomTestStringConvertible {
    /// One `lockstep serve` process on a SQLite data directory.
    case sqlite
    /// Two `lockstep serve` processes on one PostgreSQL schema, changes fanned out between them.
    case postgresTwoNodes

    var testDescription: String { rawValue }
    var nodes: Int { self == .sqlite ? 1 : 2 }
}

/// The world a history runs in: `lockstep serve` in child processes (killed and started again
/// on the same data), and five client stores in this process, each with an edit clock the
/// test sets, syncing with the server (device 4 over HTTP polling, the others over the socket).
final class ConvergenceCluster {
    static let bucket = "things"
    static let serveOptions = ["--changes-wait-seconds", "2"]

    struct Device {
        let store: URL
        let times: ManualEditTimes
        let node: Int
        let polling: Bool
        var client: LockstepClient
        var online = true
    }

    let backend: ConvergenceBackend
    /// Where the run is, for a report if it gets stuck; owns the processes and directories.
    let watch: RunWatch
    private let storeArguments: [String]
    private let removeData: @Sendable () async -> Void
    private(set) var nodes: [ServerProcess]
    let app: String
    let token: String
    var devices: [Device] = []

    private init(backend: ConvergenceBackend, watch: RunWatch, storeArguments: [String], removeData: @escaping @Sendable () async -> Void,
                 nodes: [ServerProcess], app: String, token: String) {
        self.backend = backend
        self.watch = watch
        self.storeArguments = storeArguments
        self.removeData = removeData
        self.nodes = nodes
        self.app = app
        self.token = token
    }

    /// Fresh servers and five fresh devices, online, the two peers holding the bucket's peer key.
    /// `watch` hears what the cluster awaits, and adopts its processes and directories.
    static func start(_ backend: ConvergenceBackend, watch: RunWatch = RunWatch("a convergence cluster", limit: .seconds(86_400))) async throws
        -> ConvergenceCluster
    {
        let (storeArguments, removeData) = try (backend == .sqlite ? CrashStore.sqlite : CrashStore.postgres).place()
        if let option = storeArguments.firstIndex(of: "--data-dir") {
            watch.adopt(directory: URL(fileURLWithPath: storeArguments[option + 1]))
        }
        watch.waiting(for: "server node 0 to answer")
        var nodes = [try await ServerProcess.start(storeArguments, options: serveOptions)]
        watch.adopt(nodes[0].tool)
        let credentials: (app: String, admin: String)
        let token: String
        do {
            watch.waiting(for: "the app's credentials and a user's token from node 0")
            credentials = try await nodes[0].credentials()
            token = try await nodes[0].issueToken(app: credentials.app, admin: credentials.admin, username: "team@example.com")
            if backend.nodes > 1 {
                watch.waiting(for: "server node 1 to answer")
                nodes.append(try await ServerProcess.start(storeArguments, options: serveOptions))
                watch.adopt(nodes[1].tool)
            }
        } catch {
            for node in nodes { node.kill() }
            await removeData()
            throw error
        }
        let cluster = ConvergenceCluster(
            backend: backend, watch: watch, storeArguments: storeArguments, removeData: removeData, nodes: nodes, app: credentials.app,
            token: token)
        for index in 0..<History.deviceCount {
            let store = temporaryStore()
            watch.adopt(directory: store)
            let times = ManualEditTimes()
            let node = index % backend.nodes
            let polling = index == 4
            let client = try cluster.client(store: store, node: node, polling: polling, times: times)
            cluster.devices.append(Device(store: store, times: times, node: node, polling: polling, client: client))
        }
        for device in cluster.devices {
            _ = try device.client.bucket(bucket)
            await device.client.sync.start()
        }
        for index in [History.peers.0, History.peers.1] {
            watch.waiting(for: "device \(index)'s peer key from the server")
            try await PeerSync(client: cluster.devices[index].client, bucket: bucket, transport: PipeTransport()).prepare()
        }
        return cluster
    }

    private func client(store: URL, node: Int, polling: Bool, times: ManualEditTimes) throws -> LockstepClient {
        var configuration = LockstepClient.Configuration(
            editTimes: times, heartbeatInterval: .seconds(2), backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)),
            pollingWindow: .seconds(3))
        configuration.logger.logLevel = .critical
        if polling { configuration.socketURL = refusedSocketURL }
        return try LockstepClient(
            storeDirectory: store, server: URL(string: nodes[node].baseURL)!, app: app, token: token, configuration: configuration)
    }

    func bucket(_ device: Int) throws -> Bucket { try devices[device].client.bucket(Self.bucket) }

    /// Closes every client, stops every server and removes every store.
    func stop() async {
        for (index, device) in devices.enumerated() {
            watch.begin("closing device \(index)", within: RunWatch.endPhaseLimit)
            await device.client.close()
            removeStore(device.store)
        }
        for (index, node) in nodes.enumerated() {
            watch.begin("stopping server node \(index)", within: RunWatch.endPhaseLimit)
            node.kill()
            _ = await node.tool.exitStatus(within: .seconds(10))
        }
        watch.begin("removing the servers' data", within: RunWatch.endPhaseLimit)
        await removeData()
    }

    // MARK: Faults

    func setOnline(_ device: Int, _ online: Bool) async {
        guard devices[device].online != online else { return }
        devices[device].online = online
        watch.waiting(for: "device \(device)'s sync to \(online ? "start" : "stop")")
        if online { await devices[device].client.sync.start() } else { await devices[device].client.sync.stop() }
    }

    /// Stops server node `node` (gracefully, or with SIGKILL), and starts it again on the same data and port.
    func restart(node: Int, kill: Bool) async throws {
        let old = nodes[node]
        watch.waiting(for: "server node \(node) to exit (\(kill ? "SIGKILL" : "SIGTERM"))")
        if kill { old.kill() } else { old.tool.terminate() }
        if await old.tool.exitStatus(within: .seconds(20)) == nil {
            old.kill()
            _ = await old.tool.exitStatus(within: .seconds(10))
        }
        watch.waiting(for: "server node \(node) to answer again on port \(old.port)")
        nodes[node] = try await ServerProcess.start(storeArguments, port: old.port, options: Self.serveOptions)
        watch.adopt(nodes[node].tool)
    }

    /// Hands device `index`'s store to a `lockstep client … sync` process, SIGKILLs that after
    /// `milliseconds`, and opens the store here again.
    func killClientProcess(_ index: Int, after milliseconds: Int) async throws {
        let device = devices[index]
        watch.waiting(for: "device \(index)'s client to close")
        await device.client.close()
        let process = try ToolProcess.launch(
            "lockstep", name: "client d\(index)",
            arguments: ["client", "--store", device.store.path, "--url", nodes[device.node].baseURL, "--app", app, "--token", token, "sync"])
        watch.adopt(process)
        try await Task.sleep(for: .milliseconds(milliseconds))
        watch.waiting(for: "device \(index)'s client process to exit (SIGKILL)")
        process.kill()
        _ = await process.exitStatus(within: .seconds(10))
        devices[index].client = try client(store: device.store, node: device.node, polling: device.polling, times: device.times)
        if device.online { await devices[index].client.sync.start() }
    }

    // MARK: Peers

    /// The two peer devices meet over a pipe and sync until neither has anything the other lacks.
    func meet() async throws {
        let (a, b) = (devices[History.peers.0].client, devices[History.peers.1].client)
        let pipes = [PipeTransport(), PipeTransport()]
        let syncs = [PeerSync(client: a, bucket: Self.bucket, transport: pipes[0]), PeerSync(client: b, bucket: Self.bucket, transport: pipes[1])]
        watch.waiting(for: "the peer syncs to start")
        for sync in syncs { try await sync.start() }
        pipes[0].link(to: pipes[1])
        do {
            watch.waiting(for: "the peers to pass on everything (30 s)")
            try await eventually("the peers pass on everything", timeout: .seconds(30)) {
                guard syncs[0].connectedPeers.contains(b.clientID), syncs[1].connectedPeers.contains(a.clientID) else { return false }
                guard try await Self.passedOn(from: a.replica, to: b.replica) else { return false }
                return try await Self.passedOn(from: b.replica, to: a.replica)
            }
        } catch {
            watch.waiting(for: "the peer syncs to stop, after: \(error)")
            for sync in syncs { await sync.stop() }
            throw error
        }
        watch.waiting(for: "the peer syncs to stop")
        for sync in syncs { await sync.stop() }
    }

    /// Whether `to` holds every change of `from`'s peer log that it did not give `from` itself,
    /// and `from` has logged all its own changes.
    private static func passedOn(from: Replica, to: Replica) async throws -> Bool {
        let unshared = try await from.database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM outbox WHERE bucket = ? AND author IS NULL AND shared = 0 AND status != 'rejected'",
                arguments: [bucket]) ?? 0
        }
        guard unshared == 0 else { return false }
        let cursor = try await to.peerCursor(bucket: bucket, peer: from.clientID)
        return try await from.peerChanges(bucket: bucket, after: cursor, excludingSource: to.clientID, limit: 1).isEmpty
    }

    // MARK: The end

    /// Every device online, synced until quiet; then the final states, and what went wrong getting there.
    /// `patience` is how long the devices and servers may take to agree once every device is idle.
    func settle(patience: Duration) async -> (devices: [[String: JSONObject]], servers: [[String: JSONObject]], feed: [String], problems: [String]) {
        var problems: [String] = []
        watch.begin("bringing every device online", within: RunWatch.endPhaseLimit)
        for index in devices.indices { await setOnline(index, true) }
        for (index, device) in devices.enumerated() {
            watch.begin("device \(index) becoming idle (90 s)", within: RunWatch.idleLimit)
            do {
                try await device.client.sync.waitUntilIdle(timeout: .seconds(90))
            } catch {
                problems.append("device \(index) did not become idle: \(error)")
            }
        }
        var states: (devices: [[String: JSONObject]], servers: [[String: JSONObject]]) = ([], [])
        // Each check reads every server over HTTP: one may begin just before the patience ends.
        watch.begin("the devices and servers agreeing (\(patience.formatted()))", within: patience + .seconds(60))
        do {
            try await eventually("every device holds what every server node holds", timeout: patience) {
                states = try await self.states()
                let all = states.devices + states.servers
                return try all.allSatisfy { $0 == all[0] } && devices.allSatisfy { try $0.client.outbox.pending.isEmpty }
            }
        } catch {
            problems.append("the devices and servers did not agree within \(patience) of syncing: \(error)")
        }
        for (index, device) in devices.enumerated() {
            for change in (try? device.client.outbox.rejected) ?? [] {
                if case .rejected(let code, let message) = change.status, code != 410 {
                    problems.append("device \(index): the server refused its change of \(change.key) with \(code): \(message ?? "")")
                }
            }
        }
        var feed: [String] = []
        watch.begin("reading the change feed of node 0", within: RunWatch.endPhaseLimit)
        do {
            feed = try await feedChangeIDs()
        } catch {
            problems.append("the server's change feed could not be read: \(error)")
        }
        return (states.devices, states.servers, feed, problems)
    }

    private func states() async throws -> (devices: [[String: JSONObject]], servers: [[String: JSONObject]]) {
        let onDevices = try devices.map { device in
            Dictionary(uniqueKeysWithValues: try device.client.bucket(Self.bucket).list().map { ($0.key, $0.object) })
        }
        var onServers: [[String: JSONObject]] = []
        for node in nodes { onServers.append(try await node.objects(Self.bucket, app: app, token: token)) }
        return (onDevices, onServers)
    }

    /// The ccids of every change in the bucket's feed on node 0, in feed order.
    private func feedChangeIDs() async throws -> [String] {
        try await feed().flatMap(\.changeIDs)
    }

    /// Every change in the bucket's feed on node 0, in feed order.
    func feed() async throws -> [RemoteChange] {
        var changes: [RemoteChange] = []
        while true {
            let after = changes.last?.cursor.map { "&cv=\($0)" } ?? ""
            let answer = try await nodes[0].get("/1/\(app)/\(Self.bucket)/changes?limit=1000\(after)", token: token)
            guard answer.status == 200, let json = answer.json else { throw ConvergenceError.unexpectedAnswer("GET /changes: \(answer)") }
            let page = try RemoteChange.list(json)
            changes += page
            if page.count < 1000 { return changes }
        }
    }
}

enum ConvergenceError: Error {
    case unexpectedAnswer(String)
}
