import CommandLineSupport
import Foundation

/// `lockstep-bench fanout --idle-sockets M`: what M idle streaming connections cost a server.
///
/// Child processes open the M connections in all (each `init` on one shared bucket, then silent
/// but for answering the server's pings), hold them for `holdSeconds`, and say how many are
/// still open; the server's resident memory is read before, once all are open, and after the
/// hold, and its CPU during the hold (the heartbeat's cost). Then the same against redis-server,
/// M connections that each `SUBSCRIBE`d to one channel.
struct IdleSockets {
    var sockets: Int
    var processes: Int
    var holdSeconds: Double
    var redisBinary: String

    struct Measurement {
        var server: String
        var subscribers: SubscriberSummary
        var before: ProcessMemory?
        var connected: ProcessMemory?
        var held: ProcessMemory?
        var connectSeconds: Double
        var holdCPUSeconds: Double
    }

    func run() async throws {
        let limit = FileDescriptorLimit.raiseToHardLimit()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-idle-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        say("Idle sockets: \(sockets) streaming connections from \(processes) processes, held \(holdSeconds) s")
        say("open-file limit \(limit) (the server inherits it); load average \(FanoutOverProcesses.loadAverage())")
        if limit < sockets + 256 { say("The open-file limit is below \(sockets + 256): the server may refuse connections (raise the hard limit).") }

        var measurements: [Measurement] = []
        let (lockstep, target) = try await FanoutOverProcesses.startLockstep(in: directory + "/lockstep")
        do {
            let bucket = "idle-\(UUID().uuidString.prefix(8).lowercased())"
            try await target.shareBucket(bucket)
            measurements.append(try await measure(
                on: lockstep, arguments: ["--server", "lockstep", "--url", target.socketURL, "--token", target.token, "--bucket", bucket]))
        } catch {
            await lockstep.stop()
            throw error
        }
        await lockstep.stop()
        FanoutOverProcesses.report(lockstep)

        if FileManager.default.isExecutableFile(atPath: redisBinary) {
            try FileManager.default.createDirectory(atPath: directory + "/redis", withIntermediateDirectories: true)
            let redis = try await FanoutServer.redis(binary: redisBinary, directory: directory + "/redis", maximumClients: sockets + 100)
            do {
                measurements.append(try await measure(on: redis, arguments: ["--server", "redis", "--redis-port", String(redis.port), "--bucket", "idle"]))
            } catch {
                await redis.stop()
                throw error
            }
            await redis.stop()
            FanoutOverProcesses.report(redis)
        } else {
            say("No Redis baseline: there is no redis-server at \(redisBinary) (apt-get install redis-server, or --redis PATH).")
        }

        say("")
        say(Self.row("server", "sockets", "still open", "connect s", "RSS before MiB", "all open MiB", "after hold MiB", "KiB/socket", "peak MiB", "hold CPU ms/s"))
        for measurement in measurements { say(row(measurement)) }
        for measurement in measurements where measurement.subscribers.dropped > 0 {
            say("\(measurement.server): \(measurement.subscribers.dropped) sockets dropped: \(FanoutProcessReport.describe(measurement.subscribers.endings))")
        }
        say("load average at the end: \(FanoutOverProcesses.loadAverage())")
    }

    private func measure(on server: FanoutServer, arguments: [String]) async throws -> Measurement {
        // What the server holds once started, before any connection: the baseline.
        try await Task.sleep(for: .seconds(1))
        let before = ProcessMemory(pid: server.pid)
        let started = ContinuousClock.now
        let children = try SubscriberProcesses(
            processes: processes, subscriptions: sockets, arguments: arguments + ["--expect", "0", "--quiet-seconds", "0"])
        defer { children.stop() }
        try await children.waitUntilReady(timeout: .seconds(900))
        let connectSeconds = (ContinuousClock.now - started).seconds
        let connected = ProcessMemory(pid: server.pid)
        let cpu = CPUTime(including: [server.pid])
        try await Task.sleep(for: .seconds(holdSeconds))
        let holdCPUSeconds = cpu.elapsed()
        let held = ProcessMemory(pid: server.pid)
        children.signalEndOfWriting()
        let summary = SubscriberSummary.total(try await children.summaries(timeout: .seconds(120)))
        return Measurement(
            server: server.name, subscribers: summary, before: before, connected: connected, held: held, connectSeconds: connectSeconds,
            holdCPUSeconds: holdCPUSeconds)
    }

    private func row(_ measurement: Measurement) -> String {
        func megabytes(_ memory: ProcessMemory?) -> String { memory.map { String(format: "%.1f", Double($0.resident) / 1_048_576) } ?? "?" }
        let added = Double((measurement.held?.resident ?? 0) - (measurement.before?.resident ?? 0))
        return Self.row(
            measurement.server, "\(measurement.subscribers.subscriptions)", "\(measurement.subscribers.subscriptions - measurement.subscribers.dropped)",
            String(format: "%.1f", measurement.connectSeconds), megabytes(measurement.before), megabytes(measurement.connected),
            megabytes(measurement.held), String(format: "%.1f", added / Double(max(1, sockets)) / 1024),
            measurement.held.map { String(format: "%.1f", Double($0.peakResident) / 1_048_576) } ?? "?",
            String(format: "%.1f", measurement.holdCPUSeconds * 1000 / holdSeconds))
    }

    private static func row(_ cells: String...) -> String {
        zip(cells, [8, 8, 11, 10, 15, 13, 15, 11, 9, 14]).enumerated().map { index, pair in
            let (cell, width) = pair
            let padding = String(repeating: " ", count: max(0, width - cell.count))
            return index == 0 ? cell + padding : padding + cell
        }.joined(separator: " ")
    }
}
