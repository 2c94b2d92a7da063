import ChildProcesses
import CommandLineSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A server that `lockstep-bench fanout --processes` loads, in a process of its own so that its CPU
/// time and memory can be read from /proc apart from the load's: `lockstep serve` of this very
/// binary, or redis-server. Its output is read all along for its start and for the readers it
/// drops; the other lines are kept to be shown.
final class FanoutServer: Sendable {
    let name: String
    let process: ChildProcess
    let port: Int
    private let output: Output

    var pid: Int32 { process.pid }

    /// Subscribers the server's log says it closed for falling behind.
    var slowReadersClosed: Int { output.state.withLock { $0.slowReaders } }

    /// The first lines it printed that are neither its start nor a dropped reader.
    var otherLines: [String] { output.state.withLock { $0.otherLines } }

    private init(name: String, process: ChildProcess, port: Int, output: Output) {
        self.name = name
        self.process = process
        self.port = port
        self.output = output
    }

    /// `lockstep serve` on a free loopback port over a new SQLite store in `dataDirectory`,
    /// logging warnings (a slow reader's close is one). The per-address connection cap and the
    /// HTTP rate limit are off: every client of the benchmark comes from 127.0.0.1.
    static func lockstep(dataDirectory: String) async throws -> FanoutServer {
        let arguments = [
            "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory, "--log-level", "warning",
            "--http-requests-per-second", "0", "--max-connections-per-address", "0",
        ]
        let process = try ChildProcess.spawn(LockstepBinary.path, arguments: arguments, output: .captured)
        let output = Output(slowReaderSign: "closing a slow reader") { line in
            // "Lockstep is listening on http://127.0.0.1:PORT, storing data in …"
            guard line.hasPrefix("Lockstep is listening on http://"), let address = line.split(separator: ",").first else { return nil }
            return address.split(separator: ":").last.flatMap { Int($0) }
        }
        ChildOutputLines.follow(process) { output.read($0) }
        let port = try await output.waitForStart(of: process, name: "lockstep serve")
        return FanoutServer(name: "lockstep", process: process, port: port, output: output)
    }

    /// redis-server on a free loopback port, accepting `maximumClients`: persisting nothing, or,
    /// `durable`, logging every write to its append-only file and flushing it to disk before it
    /// answers or delivers (`appendfsync always`), as Lockstep commits a change before either.
    static func redis(binary: String, directory: String, maximumClients: Int, durable: Bool = false) async throws -> FanoutServer {
        var lastFailure: any Error = CommandError("redis-server did not start")
        // A port free when chosen may be taken before redis-server binds it: then try another.
        for _ in 0..<3 {
            let port = try BenchProcesses.freePort()
            let arguments = [
                "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--daemonize", "no",
                "--dir", directory, "--logfile", "", "--maxclients", String(maximumClients),
            ] + (durable ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"])
            let process = try ChildProcess.spawn(binary, arguments: arguments, output: .captured)
            let output = Output(slowReaderSign: "overcoming of output buffer limits") { line in
                line.contains("Ready to accept connections") ? port : nil
            }
            ChildOutputLines.follow(process) { output.read($0) }
            do {
                _ = try await output.waitForStart(of: process, name: "redis-server")
                return FanoutServer(name: durable ? "redis-aof" : "redis", process: process, port: port, output: output)
            } catch {
                process.send(SIGKILL)
                lastFailure = error
            }
        }
        throw lastFailure
    }

    /// Ends the server: gracefully, or killed after five seconds.
    func stop() async {
        process.send(SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        process.send(SIGKILL)
    }

    /// What the server printed, as far as the benchmark cares.
    private final class Output: Sendable {
        struct State {
            var port: Int?
            var slowReaders = 0
            var otherLines: [String] = []
        }

        let state = Mutex(State())
        private let slowReaderSign: String
        private let startedPort: @Sendable (String) -> Int?

        init(slowReaderSign: String, startedPort: @escaping @Sendable (String) -> Int?) {
            self.slowReaderSign = slowReaderSign
            self.startedPort = startedPort
        }

        func read(_ line: String) {
            let port = state.withLock { $0.port } == nil ? startedPort(line) : nil
            state.withLock { state in
                if let port {
                    state.port = port
                } else if line.contains(slowReaderSign) {
                    state.slowReaders += 1
                } else if state.otherLines.count < 40 {
                    state.otherLines.append(line)
                }
            }
        }

        func waitForStart(of process: ChildProcess, name: String) async throws -> Int {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                if let port = state.withLock({ $0.port }) { return port }
                if let status = process.exitStatus {
                    throw CommandError("\(name) ended (\(status)) before it listened: \(state.withLock { $0.otherLines }.joined(separator: "\n"))")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw CommandError("\(name) did not listen within 60 s")
        }
    }
}
