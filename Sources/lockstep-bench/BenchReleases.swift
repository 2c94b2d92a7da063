import ArgumentParser
import AsyncHTTPClient
import CommandLineSupport
import Foundation
import LockstepCore
import NIOCore

/// `lockstep-bench releases`: what a rush at a release costs the server.
///
/// Starts `lockstep serve` (this binary) with a generated store and nginx on loopback serving
/// the very window file, measures window requests per second against both with the same load
/// generator in the same run, then fires 10,000 key fetches at one release instant.
struct BenchReleases: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "releases",
        abstract: "Window requests per second against nginx serving the same file, 10,000 key fetches at one release, and (--purchases) players buying at one release.")

    @Option(help: "Seconds of load against each server.")
    var seconds: Double = 5

    @Option(help: "Keep-alive connections of the window load.")
    var connections = 32

    @Option(name: .customLong("key-clients"), help: "Key fetches fired at the release instant.")
    var keyClients = 10_000

    @Option(name: .customLong("key-connections"), help: "Connections the key fetches share.")
    var keyConnections = 256

    @Option(help: "Players who each buy the item of one slot at the instant it is released (0: none).")
    var purchases = 0

    @Option(help: "Slots of the generated store.")
    var slots = 80

    @Option(help: "The nginx binary (Debian: apt-get install nginx).")
    var nginx = "/usr/sbin/nginx"

    @Option(help: "The window load's generator: wrk, in a process of its own (one thread), or builtin, a thread a connection in this process.")
    var generator: WindowLoadGenerator = .wrk

    @Option(help: "The wrk binary (Debian: apt-get install wrk).")
    var wrk = "/usr/bin/wrk"

    enum WindowLoadGenerator: String, ExpressibleByArgument, CaseIterable {
        case wrk, builtin
    }

    func run() async throws {
        guard FileManager.default.isExecutableFile(atPath: nginx) else {
            throw ValidationError("nginx is not at \(nginx): install it (apt-get install nginx) or pass --nginx PATH")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/html", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let lockstep = try BenchProcesses.startLockstep(directory: directory, slots: slots)
        defer { lockstep.process.send(SIGTERM) }
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: keyConnections)))
        do {
            try await measure(client: client, lockstep: lockstep, directory: directory)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    private func measure(client: HTTPClient, lockstep: BenchProcesses.Running, directory: String) async throws {
        let lockstepURL = "http://127.0.0.1:\(lockstep.port)"
        try await BenchProcesses.waitUntilUp(lockstepURL + "/health", client: client)

        let latest = try await client.execute(HTTPClientRequest(url: lockstepURL + "/releases/main/windows/latest"), timeout: .seconds(10))
        guard latest.status == .ok, let path = latest.headers.first(name: "Content-Location") else {
            throw ValidationError("the server did not serve a window (\(latest.status))")
        }
        let window = Array(try await latest.body.collect(upTo: 64 * 1024 * 1024).readableBytesView)
        let file = directory + "/html" + path
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(window).write(to: URL(fileURLWithPath: file))

        let server = try BenchProcesses.startNginx(binary: nginx, directory: directory)
        defer { server.process.send(SIGTERM) }
        let nginxURL = "http://127.0.0.1:\(server.port)"
        try await BenchProcesses.waitUntilUp(nginxURL + path, client: client)
        let fromNginx = try await client.execute(HTTPClientRequest(url: nginxURL + path), timeout: .seconds(10))
        guard Array(try await fromNginx.body.collect(upTo: 64 * 1024 * 1024).readableBytesView) == window else {
            throw ValidationError("nginx does not serve the same bytes")
        }

        say("window: \(path), \(window.count) bytes, \(slots) slots; \(connections) connections, \(seconds) s each, generator \(generator.rawValue); load average \(FanoutOverProcesses.loadAverage())")
        var figures: [(requestsPerSecond: Double, cpuPerRequest: Double)] = []
        for (name, port, pids) in [("lockstep", lockstep.port, [lockstep.process.pid]), ("nginx", server.port, [server.process.pid])] {
            _ = try load(port: port, path: path, seconds: 1)
            let cpu = CPUTime(including: pids)
            let result = try load(port: port, path: path, seconds: seconds)
            let perRequest = cpu.elapsed() * 1e6 / Double(max(1, result.requests))
            figures.append((result.requestsPerSecond, perRequest))
            say(name.padding(toLength: 9, withPad: " ", startingAt: 0) + String(
                format: "%9.0f windows/s   p50 %6.2f ms   p99 %6.2f ms   server CPU %5.1f µs/request   %d failed   generator %.2f cores%@",
                result.requestsPerSecond, result.p50, result.p99, perRequest, result.failures, result.generatorCores,
                result.isGeneratorBound ? " (generator-bound: over \(WrkLoad.generatorBoundCores) core, the figure may be the generator's)" : ""))
        }
        say(String(
            format: "lockstep against nginx: %.2f× the requests per second, %.2f× the server CPU per request",
            figures[0].requestsPerSecond / max(figures[1].requestsPerSecond, 1), figures[0].cpuPerRequest / max(figures[1].cpuPerRequest, 1e-9)))

        try await keyRush(url: lockstepURL, client: client, pid: lockstep.process.pid)
        if purchases > 0 {
            let (app, admin) = try PurchaseRush.credentials(dataDirectory: directory + "/data")
            let rush = PurchaseRush(url: lockstepURL, client: client, players: purchases, connections: keyConnections, serverPID: lockstep.process.pid)
            try await rush.run(app: app, adminToken: admin) { say($0) }
        }
    }

    /// Window requests for `seconds` from the chosen generator, with its own CPU.
    private func load(port: Int, path: String, seconds: Double) throws -> WrkLoad.Result {
        switch generator {
        case .wrk:
            return try WrkLoad(binary: wrk, connections: connections, seconds: seconds).run("http://127.0.0.1:\(port)\(path)")
        case .builtin:
            let before = ProcessCPU.now()
            let result = HTTPLoad.run(port: port, path: path, connections: connections, seconds: seconds)
            return WrkLoad.Result(
                requestsPerSecond: result.perSecond, requests: result.responses, failures: result.failures,
                p50: result.percentile(0.5), p99: result.percentile(0.99), seconds: result.seconds,
                generatorCPU: ProcessCPU.now() - before)
        }
    }

    /// Every client asks for the key of one instant at that instant.
    private func keyRush(url: String, client: HTTPClient, pid: Int32) async throws {
        // Open the connections first, as clients already connected would have.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<keyConnections {
                group.addTask { _ = try await client.execute(HTTPClientRequest(url: url + "/health"), timeout: .seconds(10)).body.collect(upTo: 1024) }
            }
            try await group.waitForAll()
        }
        let nowMilliseconds = Int64(Date().timeIntervalSince1970 * 1000)
        let release = (nowMilliseconds / 1000 + 2) * 1000
        try await Task.sleep(for: .milliseconds(release - nowMilliseconds))
        let cpu = CPUTime(including: [pid])
        let fired = ContinuousClock.now
        let outcomes = await withTaskGroup(of: (Int, Duration).self) { group in
            for _ in 0..<keyClients {
                group.addTask {
                    do {
                        let response = try await client.execute(HTTPClientRequest(url: url + "/releases/main/keys/\(release)"), timeout: .seconds(60))
                        _ = try await response.body.collect(upTo: 4096)
                        return (Int(response.status.code), ContinuousClock.now - fired)
                    } catch {
                        return (0, ContinuousClock.now - fired)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let used = cpu.elapsed()
        let latencies = outcomes.map { Double($0.1.components.attoseconds) / 1e15 + Double($0.1.components.seconds) * 1000 }.sorted()
        let ok = outcomes.filter { $0.0 == 200 }.count
        say(String(
            format: "keys: %d fetches at one release over %d connections: all done in %.0f ms (%.0f keys/s), p50 %.1f ms, p99 %.1f ms; %d OK, %d refused or failed; server CPU %.0f ms (%.1f µs/key)",
            keyClients, keyConnections, latencies.last ?? 0, Double(keyClients) / ((latencies.last ?? 1) / 1000), latencies[latencies.count / 2],
            latencies[min(latencies.count - 1, latencies.count * 99 / 100)], ok, outcomes.count - ok, used * 1000, used * 1e6 / Double(max(1, ok))))
    }
}
