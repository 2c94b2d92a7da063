import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepClient
import LockstepCore
import LockstepServer

/// `lockstep-bench peers`: two devices syncing one bucket directly over TCP on loopback,
/// against the same two devices syncing through a server in this process, in the same run.
///
/// Each path is measured the same way: one device writes `objects` new objects while it is
/// cut off; the clock starts when it connects (to the server, or to its peer) and stops when
/// the other device holds them all. Then `edits` edits, one at a time, each timed from the
/// write until the other device's event.
struct PeerBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peers", abstract: "Peer-to-peer catch-up rate and edit latency, beside the same through the server.")

    @Option(help: "Objects one device creates for the other to catch up on.")
    var objects = 5_000

    @Option(help: "Edits made one at a time, each timed until the other device sees it.")
    var edits = 200

    @Option(help: "Changes the server reads per second from one streaming connection (0: no pace); by default the server's default.")
    var changesPerSecond: Double?

    struct Figures {
        var catchUp: Double
        var latencies: [Double]

        func percentile(_ fraction: Double) -> Double {
            latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]
        }
    }

    func run() async throws {
        var limits = Limits()
        if let changesPerSecond { limits.changesPerSecond = changesPerSecond }
        let target = try await BenchTarget.inProcess(limits: limits)
        try await target.shareBucket("items")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let devices = try (0..<2).map { index in
            var configuration = LockstepClient.Configuration()
            configuration.logger.logLevel = .error
            return try LockstepClient(
                storeDirectory: scratch.appendingPathComponent("device-\(index)"), server: URL(string: target.baseURL)!,
                app: target.app, token: target.token, configuration: configuration)
        }
        let (writer, reader) = (try devices[0].bucket("items"), try devices[1].bucket("items"))
        let pace = limits.changesPerSecond > 0
            ? "reading each connection's changes at \(Int(limits.changesPerSecond))/s at most" : "reading changes unpaced"
        say("server: \(target.description), \(pace)")

        // Through the server first, so that the changes queued in the peer phase do not slow it.
        for device in devices { await device.sync.start() }
        for device in devices { try await device.sync.waitUntilIdle() }
        await devices[0].sync.stop()
        let viaServer = try await measure(writer: writer, reader: reader, prefix: "server") {
            await devices[0].sync.start()
        }
        let transports = (0..<2).map { _ in
            LocalNetworkTransport(configuration: .init(host: "127.0.0.1", multicastGroup: nil, announceInterval: .milliseconds(100)))
        }
        let peers = zip(devices, transports).map { PeerSync(client: $0, bucket: "items", transport: $1) }
        for sync in peers { try await sync.prepare() }
        for device in devices { await device.sync.stop() }
        try await peers[1].start()
        let viaPeers = try await measure(writer: writer, reader: reader, prefix: "peer") {
            try await peers[0].start()
            transports[0].connect(host: "127.0.0.1", port: transports[1].port ?? 0)
        }
        for sync in peers { await sync.stop() }
        for device in devices { await device.close() }
        await target.stop()

        say("")
        say("| path | catch-up of \(objects) objects | objects/s | edit latency p50 | p99 |")
        say("|---|---|---|---|---|")
        for (name, figures) in [("server (socket, in-process, SQLite)", viaServer), ("peers (TCP on loopback, encrypted)", viaPeers)] {
            say(
                "| \(name) | \(Measure.format(seconds: figures.catchUp)) | \(String(format: "%.0f", Double(objects) / figures.catchUp)) "
                    + "| \(Measure.format(seconds: figures.percentile(0.5))) | \(Measure.format(seconds: figures.percentile(0.99))) |")
        }
        say(String(format: "server / peers, same run: catch-up time ×%.2f, edit latency p50 ×%.2f",
                   viaServer.catchUp / viaPeers.catchUp, viaServer.percentile(0.5) / viaPeers.percentile(0.5)))
    }

    private func measure(writer: Bucket, reader: Bucket, prefix: String, connect: () async throws -> Void) async throws -> Figures {
        for index in 0..<objects {
            try await writer.put("\(prefix)-\(index)", ["name": .string("item \(index)"), "count": 0, "room": "hall"])
        }
        var events = reader.events.makeAsyncIterator()
        let start = ContinuousClock.now
        try await connect()
        var arrived = 0
        while arrived < objects {
            guard let event = await events.next() else { throw CommandError("the reader's events ended") }
            if event.kind == .inserted && event.key.hasPrefix(prefix + "-") { arrived += 1 }
        }
        let catchUp = (ContinuousClock.now - start).seconds
        var latencies: [Double] = []
        for index in 0..<edits {
            let key = "\(prefix)-\(index % objects)"
            let count = JSONValue.integer(Int64(index + 1))
            let started = ContinuousClock.now
            try await writer.update(key) { $0["count"] = count }
            while let event = await events.next(), event.key != key || event.object?["count"] != count {}
            latencies.append((ContinuousClock.now - started).seconds)
        }
        return Figures(catchUp: catchUp, latencies: latencies.sorted())
    }
}
