import Foundation
import LockstepServer
import Logging

/// A real Lockstep server inside this process, on 127.0.0.1 (a free port) over a SQLite file in
/// a fresh temporary directory, whose clock reads a known offset ahead of this machine's: what
/// the clock benchmark measures clients against. ``stop()`` stops it and deletes the directory.
struct EmbeddedServer: Sendable {
    let port: Int
    /// How far the server's clock is set ahead of this machine's wall clock, in nanoseconds.
    let clockOffset: Int64
    private let directory: URL
    private let running: Task<Void, any Error>

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    static func start(clockOffset: Int64) async throws -> EmbeddedServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try SQLiteStore(path: directory.appendingPathComponent("lockstep.sqlite").path)
        var logger = Logger(label: "lockstep-bench-server")
        logger.logLevel = .critical
        var limits = Limits()
        // Every benchmark client calls from 127.0.0.1; they must not count as one caller.
        limits.httpRequestsPerSecond = 0
        limits.maximumConnectionsPerAddress = 0
        // A socket that carries clock exchanges alone, with no channel, is what is measured.
        limits.socketInitTimeoutSeconds = 0
        let services = LockstepServices(
            store: store, limits: limits, clock: ServerClockSource(offsetNanoseconds: clockOffset), logger: logger)
        // Sockets are upgraded only for an app that exists: the one ClockSocket names.
        try await store.insertApp(AppRecord(
            id: ClockSocket.appID, name: "bench", apiKeyHash: Secrets.hash(Secrets.randomHex()),
            adminTokenHash: Secrets.hash(Secrets.randomHex()), createdAt: 0))
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let application = LockstepServer.application(services: services, host: "127.0.0.1", port: 0) { channel in
            listening.yield(channel.localAddress?.port ?? 0)
            listening.finish()
        }
        let running = Task {
            defer { listening.finish() } // a server that fails to start must not leave us waiting
            try await application.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            running.cancel()
            _ = await running.result
            try? FileManager.default.removeItem(at: directory)
            throw EmbeddedServerError.didNotStart
        }
        return EmbeddedServer(port: port, clockOffset: clockOffset, directory: directory, running: running)
    }

    func stop() async {
        running.cancel()
        _ = await running.result
        try? FileManager.default.removeItem(at: directory)
    }
}

enum EmbeddedServerError: Error, CustomStringConvertible {
    case didNotStart

    var description: String { "the in-process Lockstep server did not start listening" }
}
