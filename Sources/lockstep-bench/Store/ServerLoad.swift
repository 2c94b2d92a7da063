import AsyncHTTPClient
import ChildProcesses
import CommandLineSupport
import Foundation
import LockstepCore
import LockstepServer
import Logging
import NIOWebSocket
import Synchronization

/// Changes through a real server: `lockstep serve` in a child process on the store, and many
/// streaming connections from this process, each pipelining changes to its own bucket.
enum ServerLoad {
    struct Result {
        var result: BenchRate
        /// Changes per group commit, from the server's metrics.
        var meanGroup: Double
        /// The server process's CPU time per change, in microseconds.
        var cpuPerChange: Double
        /// This process's CPU time per change while it loads the server: the generator shares
        /// the machine's cores with the server and its store.
        var generatorCPUPerChange: Double
        /// Milliseconds from the start until this process had handed every change to its
        /// sockets, and until the first was answered: a late first answer is a slow start, not
        /// a slow pace.
        var allSent: Int
        var firstAnswered: Int
    }

    /// - Parameters:
    ///   - history: changes sent through the server, untimed, before the measured ones, so that
    ///     the buckets hold a history (costs that grow with it show only then).
    ///   - wrapper: a command the server runs under (a profiler), or none.
    ///   - binary: the `lockstep` whose server is measured (another build, to compare).
    static func measure(
        _ fresh: StoreFactory.Fresh, connections: Int, changes: Int, framesPerWrite: Int, history: Int = 0, wrapper: [String] = [],
        binary: String = LockstepBinary.path
    ) async throws -> Result {
        var logger = Logger(label: "lockstep-bench")
        logger.logLevel = .error
        let services = LockstepServices(store: fresh.store, limits: Limits(), clock: ServerClockSource(), logger: logger)
        let app = try await services.accounts.createApp(name: "bench")
        let token = try await services.accounts.issueToken(appID: app.appID, username: "bench").accessToken
        await fresh.close()

        let port = try BenchProcesses.freePort()
        let serve = ["serve", "--host", "127.0.0.1", "--port", String(port), "--log-level", "error",
            "--http-requests-per-second", "0", "--messages-per-second", "0", "--changes-per-second", "0", "--max-connections-per-address", "0"] + fresh.serveArguments
        let lockstep = binary
        let server = try wrapper.first.map { command in
            try ChildProcess.spawn("/usr/bin/env", arguments: [command] + wrapper.dropFirst() + [lockstep] + serve, output: .errorsOnly)
        } ?? ChildProcess.spawn(lockstep, arguments: serve, output: .errorsOnly)
        defer {
            // SIGINT to the server itself (under a profiler, its child), which stops gracefully;
            // a profiler then writes its data and exits too. Matched by its arguments, whatever
            // the binary is called (a copy kept to compare builds).
            let stop = try? ChildProcess.spawn("/usr/bin/pkill", arguments: ["-INT", "-f", " serve --host 127.0.0.1 --port \(port) "], output: .inherited)
            _ = stop?.waitUntilExit()
            _ = server.waitUntilExit()
        }
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { Task { try? await http.shutdown() } }
        try await BenchProcesses.waitUntilUp("http://127.0.0.1:\(port)/health", client: http)

        // Acknowledgements counted against the end of the current phase, which is signalled once.
        let acknowledged = Mutex((count: 0, target: history > 0 ? history : changes, first: ContinuousClock.Instant?.none))
        let (finished, finish) = AsyncStream.makeStream(of: Void.self)
        var sockets: [PipelinedSocket] = []
        for connection in 0..<connections {
            let initialization: JSONValue = [
                "name": .string("bench-\(connection)"), "token": .string(token), "clientid": .string("bench-\(connection)"), "api": "1.1",
                "cmd": "i::::1",
            ]
            sockets.append(try await PipelinedSocket.open(
                host: "127.0.0.1", port: port, path: "/sock/1/\(app.appID)/websocket", initialization: "0:init:\(initialization)"
            ) { message in
                guard message.hasPrefix("0:c:[") else { return }
                // Counted by bytes: Swift's regular expressions cost this process more CPU than the
                // server spent on the changes, and the two share the machine's cores.
                let count = message.occurrences(of: #""ccids":[""#)
                let errors = message.occurrences(of: #""error":"#)
                if errors > 0 { say("  a change was refused: \(message.prefix(300))") }
                let reached = acknowledged.withLock { acknowledged in
                    let before = acknowledged.count
                    acknowledged.count += count
                    acknowledged.first = acknowledged.first ?? .now
                    return before < acknowledged.target && acknowledged.count >= acknowledged.target
                }
                if reached { finish.yield() }
            })
        }
        var phases = finished.makeAsyncIterator()
        if history > 0 {
            try await pipeline(
                frames(history, connections: connections, changeIDPrefix: "h", firstIndex: 0), over: sockets, framesPerWrite: framesPerWrite)
            await phases.next()
            acknowledged.withLock { $0 = (count: 0, target: changes, first: nil) }
        }
        // Framed before the clock starts, as the raw baseline makes its rows: the figure is the
        // server's, not this process's JSON encoding (with it, sending 20,000 took 120–150 ms; without, 55–95).
        let frames = frames(changes, connections: connections, changeIDPrefix: "c", firstIndex: history)
        let cpu = CPUTime(including: [server.pid])
        let ownCPU = ProcessCPU.now()
        let started = ContinuousClock.now
        try await pipeline(frames, over: sockets, framesPerWrite: framesPerWrite)
        let sent = ContinuousClock.now
        await phases.next()
        let rate = BenchRate(changes: changes, since: started)
        let serverCPU = cpu.elapsed()
        let generatorCPU = ProcessCPU.now() - ownCPU
        for socket in sockets { await socket.close() }

        let metrics = try await http.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(10))
        let text = String(buffer: try await metrics.body.collect(upTo: 16 * 1024 * 1024))
        func value(_ name: String) -> Double {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        }
        let groups = value("lockstep_commit_group_size_count")
        return Result(
            result: rate, meanGroup: groups > 0 ? value("lockstep_commit_group_size_sum") / groups : 0,
            cpuPerChange: serverCPU * 1e6 / Double(changes), generatorCPUPerChange: generatorCPU * 1e6 / Double(changes), allSent: Int((sent - started) / .milliseconds(1)),
            firstAnswered: acknowledged.withLock { $0.first.map { Int(($0 - started) / .milliseconds(1)) } } ?? 0)
    }
}

extension ServerLoad {
    /// The `c:` messages of `changes` changes shared among `connections`, framed, each
    /// connection's in the order it sends them. Each change's data is made from its index, counted from `firstIndex`,
    /// so that a phase never sets an object to what an earlier phase left (a change that changes
    /// nothing is refused).
    fileprivate static func frames(_ changes: Int, connections: Int, changeIDPrefix: String, firstIndex: Int) -> [[WebSocketFrame]] {
        (0..<connections).map { connection in
            let share = changes / connections + (connection < changes % connections ? 1 : 0)
            return PipelinedSocket.frames((firstIndex..<firstIndex + share).map { index in
                let fields: JSONValue = [
                    "id": .string("object-\(index % 10)"), "ccid": .string("\(changeIDPrefix)\(connection)-\(index)"), "o": "M",
                    "d": .object(BenchChange.data(index: index)),
                ]
                return "0:c:\(fields)"
            })
        }
    }

    /// Sends each socket its frames, pipelined: none waits for an answer.
    fileprivate static func pipeline(_ frames: [[WebSocketFrame]], over sockets: [PipelinedSocket], framesPerWrite: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (socket, frames) in zip(sockets, frames) {
                group.addTask { try await socket.send(frames, perWrite: framesPerWrite) }
            }
            try await group.waitForAll()
        }
    }
}

extension String {
    /// How many times `pattern` occurs, not overlapping.
    fileprivate func occurrences(of pattern: String) -> Int {
        let pattern = Array(pattern.utf8)
        var text = self
        return text.withUTF8 { bytes in
            guard let first = pattern.first, bytes.count >= pattern.count else { return 0 }
            var count = 0
            var index = 0
            while index <= bytes.count - pattern.count {
                if bytes[index] == first, bytes[index..<index + pattern.count].elementsEqual(pattern) {
                    count += 1
                    index += pattern.count
                } else {
                    index += 1
                }
            }
            return count
        }
    }
}
