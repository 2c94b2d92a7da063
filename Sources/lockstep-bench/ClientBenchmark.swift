import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepClient
import LockstepCore
import LockstepServer
import Logging

/// `lockstep-bench client`: the client SDK's local write throughput, and the time a fresh
/// client takes to sync a large bucket for the first time from a server started in-process.
struct ClientBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client", abstract: "Local durable puts per second, and time to first full sync of a large bucket.")

    @Option(help: "Objects written to the local store, one durable put at a time.")
    var writes = 5_000

    @Option(help: "Objects in the bucket the fresh client syncs.")
    var objects = 100_000

    @Flag(help: "Sync over HTTP polling even if the server has the streaming socket.")
    var polling = false

    func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try await measureLocalWrites(in: scratch.appendingPathComponent("writes"))
        try await measureFirstSync(in: scratch)
    }

    private func measureLocalWrites(in directory: URL) async throws {
        let client = try LockstepClient(
            storeDirectory: directory, server: URL(string: "http://127.0.0.1:9")!, app: "bench", token: "none")
        let bucket = try client.bucket("items")
        let start = ContinuousClock.now
        for index in 0..<writes {
            try await bucket.put("item-\(index)", ["name": .string("item \(index)"), "count": .integer(Int64(index)), "room": "hall"])
        }
        let elapsed = ContinuousClock.now - start
        say("local writes: \(writes) durable puts in \(format(elapsed)): \(rate(writes, elapsed)) puts/s (WAL, synchronous=FULL)")
        await client.close()
    }

    private func measureFirstSync(in directory: URL) async throws {
        var logger = Logger(label: "lockstep-bench")
        logger.logLevel = .error
        let store = try SQLiteStore(path: directory.appendingPathComponent("server.sqlite").path)
        let services = LockstepServices(store: store, limits: Limits(), clock: ServerClockSource(), logger: logger)
        let app = try await services.accounts.createApp(name: "bench")
        let token = try await services.accounts.issueToken(appID: app.appID, username: "bench@example.com").accessToken
        let identity = try await services.accounts.authenticate(appID: app.appID, token: token)
        let scope = try await services.scope(for: identity, bucket: "items", writing: true)

        let seeding = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Many lanes at once, so that the server's writer commits them in groups.
            let lanes = 64
            for lane in 0..<lanes {
                group.addTask {
                    for index in stride(from: lane, to: objects, by: lanes) {
                        let data: JSONObject = ["name": .string("item \(index)"), "count": .integer(Int64(index)), "room": "hall", "tags": ["a", "b"]]
                        try await services.buckets.apply(
                            IncomingChange(
                                key: "item-\(index)", changeID: "seed-\(index)", clientID: "bench",
                                operation: .modify(diff: ObjectDiff(from: [:], to: data), fullData: nil), sourceVersion: nil,
                                editTime: nil),
                            to: scope, by: .trusted)
                    }
                }
            }
            try await group.waitForAll()
        }
        say("seeded \(objects) objects through BucketService in \(format(ContinuousClock.now - seeding))")

        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = LockstepServer.application(services: services, host: "127.0.0.1", port: 0) { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
            portContinuation.finish()
        }
        let server = Task { try await application.run() }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw ValidationError("the server did not start") }

        var configuration = LockstepClient.Configuration()
        configuration.logger.logLevel = .error
        if polling { configuration.socketURL = URL(string: "ws://127.0.0.1:9/none") }
        let client = try LockstepClient(
            storeDirectory: directory.appendingPathComponent("client"), server: URL(string: "http://127.0.0.1:\(port)")!,
            app: app.appID, token: token, configuration: configuration)
        let bucket = try client.bucket("items")
        let start = ContinuousClock.now
        await client.sync.start()
        try await client.sync.waitUntilIdle(timeout: .seconds(3600))
        let elapsed = ContinuousClock.now - start
        let transport = client.sync.state
        let synced = try bucket.list().count
        await client.close()
        guard synced == objects else { throw ValidationError("the client holds \(synced) objects, not \(objects)") }
        say("first full sync over \(transport == .streaming ? "the socket" : "HTTP polling"): \(objects) objects in \(format(elapsed)): \(rate(objects, elapsed)) objects/s")
    }

    private func format(_ duration: Duration) -> String {
        String(format: "%.2f s", seconds(duration))
    }

    private func rate(_ count: Int, _ duration: Duration) -> String {
        String(format: "%.0f", Double(count) / seconds(duration))
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
