import CommandLineSupport
import Foundation

/// `lockstep-bench fanout --processes N`: the fan-out load with the server in a process of its
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
    /// Lockstep and Redis are measured this many times, the order of servers alternated
    /// round by round: one run's ratio moves by a fifth on a shared machine.
    var rounds = 1

    func run() async throws {
        let writes = max(1, Int((writesPerSecond * seconds).rounded()))
        let limit = FileDescriptorLimit.raiseToHardLimit()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-fanout-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let load = FanoutLoad(subscribers: subscribers, processes: processes, writesPerSecond: writesPerSecond, writes: writes)
        let hasRedis = FileManager.default.isExecutableFile(atPath: redisBinary)

        say("Fan-out over processes: \(subscribers) subscribers in \(processes) processes, \(writes) writes at \(writesPerSecond)/s to one shared bucket (Redis: one channel)")
        say("\(ProcessInfo.processInfo.activeProcessorCount) cores shared by server and load; open-file limit \(limit); load average \(Self.loadAverage())")
        if !hasRedis { say("No Redis baseline: there is no redis-server at \(redisBinary) (apt-get install redis-server, or --redis PATH).") }
        var results: [[FanoutLoad.Measurement]] = []
        for round in 1...rounds {
            if rounds > 1 {
                say("")
                say("Round \(round) of \(rounds), \(round % 2 == 1 ? "Lockstep" : "Redis") first")
            }
            var measurements: [FanoutLoad.Measurement] = []
            let redisRounds = hasRedis ? [false, true] : []
            if round % 2 == 0 {
                for durable in redisRounds { measurements.append(try await redisRound(load, durable: durable, in: "\(directory)/\(round)")) }
            }
            measurements.insert(try await lockstepRound(load, in: "\(directory)/\(round)/lockstep"), at: 0)
            if round % 2 == 1 {
                for durable in redisRounds { measurements.append(try await redisRound(load, durable: durable, in: "\(directory)/\(round)")) }
            }
            Self.printRound(measurements)
            results.append(measurements)
        }
        if rounds > 1 && hasRedis { Self.reportMedians(of: results) }
        say("load average at the end: \(Self.loadAverage())")
    }

    /// One round's table, what lies behind it, and Lockstep against each Redis.
    private static func printRound(_ measurements: [FanoutLoad.Measurement]) {
        say("")
        say(FanoutProcessReport.header)
        for measurement in measurements { say(FanoutProcessReport.row(measurement)) }
        for line in measurements.flatMap(FanoutProcessReport.details) { say(line) }
        for redis in measurements.dropFirst() { say(FanoutProcessReport.ratios(lockstep: measurements[0], redis: redis)) }
    }

    /// Each round's p99 and CPU per delivery over each Redis's, and their medians.
    private static func reportMedians(of results: [[FanoutLoad.Measurement]]) {
        say("")
        for index in results[0].indices.dropFirst() {
            let name = results[0][index].server
            for (figure, value) in [
                ("p99", { (measurement: FanoutLoad.Measurement) in Double(measurement.subscribers.latencies.percentile(0.99)) }),
                ("CPU per delivery", { (measurement: FanoutLoad.Measurement) in measurement.serverCPUPerDelivery }),
            ] {
                let ratios = results.map { round in value(round[0]) / max(value(round[index]), 1e-12) }
                say("lockstep / \(name), \(figure), median of \(ratios.count) rounds: "
                    + String(format: "×%.2f", ratios.sorted()[ratios.count / 2]) + " ("
                    + ratios.map { String(format: "×%.2f", $0) }.joined(separator: ", ") + ")")
            }
        }
    }

    /// The load against `lockstep serve` of this binary, in `directory`.
    private func lockstepRound(_ load: FanoutLoad, in directory: String) async throws -> FanoutLoad.Measurement {
        let (lockstep, target) = try await Self.startLockstep(in: directory)
        let measurement: FanoutLoad.Measurement
        do {
            let bucket = "fanout-\(UUID().uuidString.prefix(8).lowercased())"
            try await target.shareBucket(bucket)
            let arguments = ["--server", "lockstep", "--url", target.socketURL, "--token", target.token, "--bucket", bucket]
            measurement = try await load.run(on: lockstep, subscriberArguments: arguments) {
                try await StreamWriter.open(url: target.socketURL, token: target.token, bucket: bucket)
            }
        } catch {
            await lockstep.stop()
            throw error
        }
        await lockstep.stop()
        Self.report(lockstep)
        return measurement
    }

    /// The same load against redis-server: publishing only, or (`durable`) storing each change
    /// and publishing it, with every write flushed to disk first (``FanoutServer/redis(binary:directory:maximumClients:durable:)``).
    private func redisRound(_ load: FanoutLoad, durable: Bool, in round: String) async throws -> FanoutLoad.Measurement {
        let directory = round + (durable ? "/redis-aof" : "/redis")
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
