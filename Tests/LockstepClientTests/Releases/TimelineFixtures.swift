import Foundation
import LockstepClient
import LockstepCore
import LockstepServer
import Logging
import Synchronization

/// Server time that moves only when a test moves it.
final class SimulatedTime: ServerTimeSource {
    private let nanoseconds: Mutex<Int64>

    init(milliseconds: Int64) {
        nanoseconds = Mutex(milliseconds * 1_000_000)
    }

    /// Server time now, in nanoseconds since the epoch.
    var current: Int64 { nanoseconds.withLock { $0 } }

    func now() -> ServerTime? { ServerTime(nanosecondsSinceEpoch: current, errorBound: .zero) }

    func advance(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        nanoseconds.withLock { $0 += seconds * 1_000_000_000 + attoseconds / 1_000_000_000 }
    }
}

/// Windows and keys made on the spot by the real generator, as a server would serve them,
/// refusing everything while `isDown` says so and recording when windows were asked for.
final class ScriptedFetcher: ReleaseFetching {
    let schedule: StoreSchedule
    let seed: ReleaseSeed
    let time: SimulatedTime
    let isDown: @Sendable (Int64) -> Bool
    private let attempts = Mutex<[(time: Int64, succeeded: Bool)]>([])
    private let chains = Mutex<[Int64: ReleaseKeyChain]>([:])

    init(configuration: ReleaseConfiguration, seedText: String, time: SimulatedTime, isDown: @escaping @Sendable (Int64) -> Bool = { _ in false }) throws {
        seed = try ReleaseSeed(text: seedText)
        schedule = StoreSchedule(configuration: configuration, store: configuration.stores[0], seed: seed)
        self.time = time
        self.isDown = isDown
    }

    var windowAttempts: [(time: Int64, succeeded: Bool)] { attempts.withLock { $0 } }

    func window(store: String, start: Int64) async throws -> ReleaseWindow {
        let now = time.current / 1_000_000
        let down = isDown(now)
        attempts.withLock { $0.append((now, !down)) }
        if down { throw ReleaseFetchError(status: 503, message: "down") }
        guard start <= now else { throw ReleaseFetchError(status: 409, message: "not yet") }
        return ReleaseWindow(schedule: schedule, start: start) { chain(store, epoch: $0) }
    }

    func key(store: String, time requested: Int64) async throws -> ReleasedKey? {
        let now = time.current / 1_000_000
        if isDown(now) { throw ReleaseFetchError(status: 503, message: "down") }
        let position = ChainPosition(releasedAt: requested)
        guard position.releaseTime <= now else { return nil }
        return ReleasedKey(store: store, position: position, key: chain(store, epoch: position.epoch).key(at: position.index))
    }

    private func chain(_ store: String, epoch: Int64) -> ReleaseKeyChain {
        if let known = chains.withLock({ $0[epoch] }) { return known }
        let chain = ReleaseKeyChain(seed: seed, store: store, epoch: epoch)
        chains.withLock { $0[epoch] = chain }
        return chain
    }
}

/// Lets a sleep closure reach the timeline it was given to.
final class TimelineReference: Sendable {
    let timeline = Mutex<ReleaseTimeline?>(nil)

    func settle() async {
        if let timeline = timeline.withLock({ $0 }) { await timeline.settle() }
    }
}

enum TimelineFixtures {
    static let seedText = "client-test-seed-0123456789abcdef0123456789"
    /// 2025-10-25T13:20:00Z.
    static let minute: Int64 = 1_761_398_400_000

    static func configuration(slots: Int = 12) -> ReleaseConfiguration {
        ReleaseConfiguration(
            stores: [StoreDefinition(id: "main", slots: slots)],
            items: [CatalogItem(id: "sword", weight: 3, data: ["price": 100]), CatalogItem(id: "shield"), CatalogItem(id: "potion")])
    }
}

/// A real Lockstep server with a store, on 127.0.0.1, over a temporary SQLite file.
struct StoreServer: Sendable {
    let port: Int
    let directory: URL
    private let running: Task<Void, any Error>

    var baseURL: String { "http://127.0.0.1:\(port)" }

    static func start(configuration: ReleaseConfiguration, seedText: String) async throws -> StoreServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-client-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var logger = Logger(label: "lockstep-client-test")
        logger.logLevel = .warning
        let clock = ServerClockSource()
        var services = LockstepServices(
            store: try SQLiteStore(path: directory.appendingPathComponent("lockstep.sqlite").path), limits: Limits(), clock: clock, logger: logger)
        services.releases = ReleaseService(configuration: configuration, seed: try ReleaseSeed(text: seedText), now: { clock.now() })
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = LockstepServer.application(services: services, host: "127.0.0.1", port: 0) { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }
        let running = Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            running.cancel()
            throw ReleaseFetchError(status: 0, message: "the test server did not start")
        }
        return StoreServer(port: port, directory: directory, running: running)
    }

    func stop() async {
        running.cancel()
        _ = await running.result
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The server's own clock, for a timeline next to a real server on the same machine.
struct RealServerTime: ServerTimeSource {
    let clock = ServerClockSource()
    func now() -> ServerTime? { ServerTime(nanosecondsSinceEpoch: clock.now(), errorBound: .zero) }
}

/// Serves its first window from one fetcher and every later one from another.
final class TwoFacedFetcher: ReleaseFetching {
    let first: any ReleaseFetching
    let then: any ReleaseFetching
    private let served = Mutex(0)

    init(first: any ReleaseFetching, then: any ReleaseFetching) {
        self.first = first
        self.then = then
    }

    func window(store: String, start: Int64) async throws -> ReleaseWindow {
        let count = served.withLock { count in
            count += 1
            return count
        }
        return try await (count == 1 ? first : then).window(store: store, start: start)
    }

    func key(store: String, time: Int64) async throws -> ReleasedKey? {
        try await first.key(store: store, time: time)
    }
}
