import Foundation

/// `lockstep bench fanout --processes N`: the fan-out load with the server in a process of its
/// own (`lockstep serve` of this binary) and the subscribers spread over N child processes,
/// then the same load against redis-server (PUBLISH to SUBSCRIBErs) with the same generator,
/// twice: publishing only, and storing every change with each write flushed to disk before it
/// is answered or delivered, as Lockstep does (`redis-aof`).
///
/// Each server's CPU time and memory are read from /proc, so CPU per delivery is the server's
/// alone; latency is from the writer stamping a change with the wall clock to a subscriber
/// reading it, every process on this machine's one clock.
struct FanoutOverProcesses {
    var subscribers: Int
    var processes: Int
    var writesPerSecond: Double
    var seconds: Double
    /// redis-server's path; no baseline when nothing is there.
    var redisBinary: String

    func run() async throws {
        let writes = max(1, Int((writesPerSecond * seconds).rounded()))
        let limit = FileDescriptorLimit.raiseToHardLimit()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-fanout-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let load = FanoutLoad(subscribers: subscribers, processes: processes, writesPerSecond: writesPerSecond, writes: writes)

        say("Fan-out over processes: \(subscribers) subscribers in \(processes) processes, \(writes) writes at \(writesPerSecond)/s to one shared bucket (Redis: one channel)")
        say("\(ProcessInfo.processInfo.activeProcessorCount) cores shared by server and load; open-file limit \(limit); load average \(Self.loadAverage())")
        var measurements: [FanoutLoad.Measurement] = []
        let (lockstep, target) = try await Self.startLockstep(in: directory + "/lockstep")
        do {
            let bucket = "fanout-\(UUID().uuidString.prefix(8).lowercased())"
            try await target.shareBucket(bucket)
            let arguments = ["--server", "lockstep", "--url", target.socketURL, "--token", target.token, "--bucket", bucket]
            measurements.append(try await load.run(on: lockstep, subscriberArguments: arguments) {
                try await StreamWriter.open(url: target.socketURL, token: target.token, bucket: bucket)
            })
        } catch {
            await lockstep.stop()
            throw error
        }
        await lockstep.stop()
        Self.report(lockstep)

        if FileManager.default.isExecutableFile(atPath: redisBinary) {
            for durable in [false, true] {
                measurements.append(try await redisRound(load, durable: durable, in: directory + (durable ? "/redis-aof" : "/redis")))
            }
        } else {
            say("No Redis baseline: there is no redis-server at \(redisBinary) (apt-get install redis-server, or --redis PATH).")
        }

        say("")
        say(FanoutProcessReport.header)
        for measurement in measurements { say(FanoutProcessReport.row(measurement)) }
        for line in measurements.flatMap(FanoutProcessReport.details) { say(line) }
        for redis in measurements.dropFirst() { say(FanoutProcessReport.ratios(lockstep: measurements[0], redis: redis)) }
        say("load average at the end: \(Self.loadAverage())")
    }

    /// The same load against redis-server: publishing only, or (`durable`) storing each change
    /// and publishing it, with every write flushed to disk first (``FanoutServer/redis(binary:directory:maximumClients:durable:)``).
    private func redisRound(_ load: FanoutLoad, durable: Bool, in directory: String) async throws -> FanoutLoad.Measurement {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let redis = try await FanoutServer.redis(binary: redisBinary, directory: directory, maximumClients: subscribers + 100, durable: durable)
        do {
            let channel = "fanout-\(UUID().uuidString.prefix(8).lowercased())"
            let arguments = ["--server", "redis", "--redis-port", String(redis.port), "--bucket", channel]
            let measurement = try await load.run(on: redis, subscriberArguments: arguments) {
                try await RedisPublisher.open(port: redis.port, channel: channel, storing: durable)
            }
            await redis.stop()
            return measurement
        } catch {
            await redis.stop()
            throw error
        }
    }

    /// Shows Lockstep's warnings and errors, but for its start (the default app's credentials)
    /// and its dropped readers (counted apart). Redis's log says nothing the figures need: what
    /// it refuses comes back to the writer, and its dropped readers are counted too.
    static func report(_ server: FanoutServer) {
        guard server.name == "lockstep" else { return }
        for line in server.otherLines where !line.isEmpty && !line.hasPrefix("Created the default app") && !line.hasPrefix("  ") {
            say("\(server.name) said: \(line)")
        }
    }

    /// `lockstep serve` in `directory`, with the default app's user token and a way to share
    /// buckets, through its HTTP API as any client would.
    static func startLockstep(in directory: String) async throws -> (FanoutServer, BenchTarget) {
        // Private, as the server wants its data directory (it warns otherwise).
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let server = try await FanoutServer.lockstep(dataDirectory: directory)
        do {
            // The server writes the default app's credentials before it listens.
            let (app, admin) = try PurchaseRush.credentials(dataDirectory: directory)
            return (server, try await BenchTarget.remote(url: "http://127.0.0.1:\(server.port)", app: app, adminToken: admin))
        } catch {
            await server.stop()
            throw error
        }
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }
}
