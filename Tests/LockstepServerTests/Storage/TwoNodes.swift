import Foundation
import LockstepCore
@testable import LockstepPostgres
import LockstepServer
import PostgresNIO
import Testing

/// One node of a test cluster: a real server over a shared PostgreSQL store, with its relay running.
struct TestNode: Sendable {
    let server: TestServer
    let store: PostgresStore
    let relay: PostgresChangeRelay
    let relaying: Task<Void, any Error>
    /// When (server time) this node enforced each revocation of a space that its relay heard of.
    let spaceRevocations: Mailbox<Int64>

    /// A request as `user` to this node, for the app the user belongs to (created on node one).
    func request(_ user: UserSession, _ method: String, _ path: String, body: JSONValue? = nil) async throws -> TestResponse {
        try await server.request(
            method, "/1/\(user.server.appID)/\(path)", headers: ["X-Simperium-Token": user.token], body: body, timeout: .seconds(60))
    }
}

enum TwoNodes {
    /// Starts two nodes on a fresh schema of the test database, sharing one blob directory (as a
    /// deployment's nodes share a volume), runs `body`, and stops them.
    static func with(
        reconnectDelay: Duration = .milliseconds(100), heartbeatTimeout: Duration = .seconds(10),
        limits adjust: (inout Limits) -> Void = { _ in }, _ body: (TestNode, TestNode) async throws -> Void
    ) async throws {
        let blobs = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: blobs) }
        try await TestStores.withPostgresSchema { configuration in
            var limits = TestServer.testLimits
            limits.changesLongPollSeconds = 30
            adjust(&limits)
            let one = try await start(configuration, limits: limits, blobs: blobs, reconnectDelay: reconnectDelay, heartbeatTimeout: heartbeatTimeout)
            let two = try await start(configuration, limits: limits, blobs: blobs, reconnectDelay: reconnectDelay, heartbeatTimeout: heartbeatTimeout)
            do {
                try await body(one, two)
            } catch {
                await stop(one)
                await stop(two)
                throw error
            }
            await stop(one)
            await stop(two)
        }
    }

    private static func start(
        _ configuration: PostgresStore.Configuration, limits: Limits, blobs: URL, reconnectDelay: Duration, heartbeatTimeout: Duration
    ) async throws -> TestNode {
        let store = try await PostgresStore.connect(configuration, serverKey: TestStores.serverKey, logger: TestStores.quietLogger)
        let server = try await TestServer.start(limits: limits, store: store, blobDirectory: blobs)
        let revocations = Mailbox<Int64>()
        // A quick heartbeat, so that its queries run on the listening connection during the tests.
        let relay = PostgresChangeRelay(
            store: store, hub: server.services.hub, reconnectDelay: reconnectDelay, heartbeatInterval: .milliseconds(100),
            heartbeatTimeout: heartbeatTimeout, logger: TestStores.quietLogger,
            revokeSpace: { [spaces = server.services.spaces, clock = server.services.clock] revocation in
                spaces.enforce(revocation)
                revocations.deliver(clock.now())
            },
            recheckSpaces: { [spaces = server.services.spaces] in try await spaces.recheckOpenChannels() })
        let relaying = Task { try await relay.run() }
        await relay.waitUntilListening()
        return TestNode(server: server, store: store, relay: relay, relaying: relaying, spaceRevocations: revocations)
    }

    private static func stop(_ node: TestNode) async {
        node.relaying.cancel()
        _ = await node.relaying.result
        await node.server.stop()
        await node.store.shutdown()
    }

    /// Ends the node's listening connection from the server side, and waits until it is gone.
    static func terminateRelayConnection(of node: TestNode) async throws {
        try await withAdminConnection(node) { admin in
            let pid = try await relayBackend(of: node, admin)
            _ = try await admin.query("SELECT pg_terminate_backend(\(pid))", logger: TestStores.quietLogger).collect()
            try await waitUntil {
                let left = try await admin.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = \(pid)", logger: TestStores.quietLogger
                ).collect()
                return try left.first?.decode(Int64.self) == 0
            }
        }
    }

    /// Stops (SIGSTOP) the server process behind the node's listening connection, and returns its pid.
    ///
    /// Only for a server on this machine that the tests may signal (as root, in CI); the case is
    /// skipped otherwise.
    static func freezeRelayBackend(of node: TestNode) async throws -> pid_t {
        guard ["127.0.0.1", "localhost", "::1"].contains(node.store.configuration.host) else {
            try Test.cancel("the test database is not on this machine, so its processes cannot be frozen")
        }
        let pid = pid_t(try await withAdminConnection(node) { admin in try await relayBackend(of: node, admin) })
        let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        try #require(command.hasPrefix("postgres"), "process \(pid) is not a PostgreSQL backend: \(command)")
        guard kill(pid, SIGSTOP) == 0 else {
            try Test.cancel("this test may not signal PostgreSQL's processes (errno \(errno)); run it as root or as postgres")
        }
        return pid
    }

    /// Runs `body` while a connection of the test's own listens on the nodes' channel, putting
    /// every payload notified from then on in the mailbox it is given.
    static func withNotifications<T: Sendable>(of node: TestNode, _ body: @Sendable @escaping (Mailbox<String>) async throws -> T) async throws -> T {
        try await withAdminConnection(node) { listener in
            let payloads = Mailbox<String>()
            return try await listener.listen(on: node.store.configuration.notificationChannel) { notifications in
                try await withThrowingTaskGroup(of: T?.self) { group in
                    group.addTask {
                        for try await notification in notifications { payloads.deliver(notification.payload) }
                        return nil
                    }
                    group.addTask { try await body(payloads) }
                    defer { group.cancelAll() }
                    while let result = try await group.next() {
                        if let result { return result }
                    }
                    throw CancellationError()
                }
            }
        }
    }

    /// The backend of the node's listening connection. Polled: with a short heartbeat on a
    /// loaded machine, the relay may be between two connections (the old one closed, the new
    /// one not yet in `pg_stat_activity`; a full parallel run found none).
    private static func relayBackend(of node: TestNode, _ admin: PostgresConnection) async throws -> Int32 {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let pids = try await admin.query(
                "SELECT pid FROM pg_stat_activity WHERE application_name = \("lockstep relay \(node.store.nodeID)")",
                logger: TestStores.quietLogger
            ).collect().map { try $0.decode(Int32.self) }
            if pids.count == 1 || ContinuousClock.now > deadline {
                return try #require(pids.count == 1 ? pids.first : nil, "node \(node.store.nodeID) has \(pids.count) listening connections")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private static func withAdminConnection<T>(_ node: TestNode, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let configuration = node.store.configuration
        let admin = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: configuration.host, port: configuration.port, username: configuration.username,
                password: configuration.password, database: configuration.database, tls: .disable),
            id: 99, logger: TestStores.quietLogger)
        do {
            let result = try await body(admin)
            try await admin.close()
            return result
        } catch {
            try? await admin.close()
            throw error
        }
    }
}
