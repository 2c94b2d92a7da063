import Crypto
import Foundation
public import LockstepCore
import NIOCore
import Synchronization

/// The timed store: windows, keys, the live key stream and the schedule purchases are checked
/// against, all derived from the configuration and the seed with no database.
///
/// ```swift
/// let releases = try ReleaseService.load(configPath: "store.json", seedText: seedText, now: { clock.now() })
/// var services = LockstepServices(store: store, limits: limits, clock: clock, logger: logger)
/// services.releases = releases
/// ```
public final class ReleaseService: Sendable {
    public let configuration: ReleaseConfiguration
    /// Every key release as it happens, for the streaming socket to push.
    public let hub: KeyReleaseHub
    let schedules: [String: StoreSchedule]
    let seed: ReleaseSeed
    /// Server time in nanoseconds since the Unix epoch.
    let now: @Sendable () -> Int64
    let windows: SharedResults<WindowKey, WindowFile>
    /// Windows and keys answered on the event loop from what was computed (``ReleaseFastPath``).
    let answeredAtHand = Atomic<Int>(0)
    let chains: SharedResults<ChainKey, ReleaseKeyChain>

    /// How far back keys are served: a day of epochs. Older ones are refused, so that no one
    /// can make the server hash chains for arbitrary hours.
    static let keyHistoryEpochs: Int64 = 24
    /// Times clients may name: from the Unix epoch to 2100, so that no arithmetic on them overflows.
    static let validTimes: ClosedRange<Int64> = 0...4_102_444_800_000
    /// Where each buyer's purchases are recorded, by the server alone: while a store is
    /// configured, users cannot write this bucket themselves (the admin still may).
    public static let purchasesBucket = "purchases"

    public init(configuration: ReleaseConfiguration, seed: ReleaseSeed, now: @escaping @Sendable () -> Int64) {
        self.configuration = configuration
        self.seed = seed
        self.now = now
        var schedules: [String: StoreSchedule] = [:]
        for store in configuration.stores {
            schedules[store.id] = StoreSchedule(configuration: configuration, store: store, seed: seed)
        }
        self.schedules = schedules
        let storeCount = configuration.stores.count
        windows = SharedResults(capacity: 12 * storeCount) { a, b in a.start < b.start }
        // Every epoch a client may name stays computed (115 KB a chain, 3 MB a store): with
        // fewer, asking for the day's hours in turn made the server hash a chain per request.
        let chains = SharedResults<ChainKey, ReleaseKeyChain>(capacity: (Int(Self.keyHistoryEpochs) + 2) * storeCount) { a, b in
            a.epoch < b.epoch
        }
        self.chains = chains
        hub = KeyReleaseHub(schedules: configuration.stores.compactMap { schedules[$0.id] }, now: now) { store, position in
            await chains.value(ChainKey(store: store, epoch: position.epoch)) {
                ReleaseKeyChain(seed: seed, store: store, epoch: position.epoch)
            }.key(at: position.index)
        }
    }

    /// Reads the configuration file and takes the seed's text (from a file or an environment
    /// variable), refusing either with an error that says what is wrong and where.
    public static func load(configPath: String, seedText: String, now: @escaping @Sendable () -> Int64) throws -> ReleaseService {
        guard let bytes = FileManager.default.contents(atPath: configPath) else {
            throw ReleaseSetupError("cannot read the store configuration \(configPath)")
        }
        let configuration = try ReleaseConfiguration(parsing: bytes, fileName: configPath)
        return ReleaseService(configuration: configuration, seed: try ReleaseSeed(text: seedText), now: now)
    }

    /// Server time in milliseconds since the Unix epoch.
    var nowMilliseconds: Int64 { now() / 1_000_000 }

    /// A time in a request's path: milliseconds since the Unix epoch, within ``validTimes``.
    static func milliseconds(_ text: String, name: String) throws(ReleaseError) -> Int64 {
        guard let value = Int64(text), ReleaseService.validTimes.contains(value) else {
            throw ReleaseError(.badRequest, "\(name) is a time in milliseconds since the Unix epoch (or latest), not \(text)")
        }
        return value
    }

    func schedule(_ store: String) throws(ReleaseError) -> StoreSchedule {
        guard let schedule = schedules[store] else { throw ReleaseError(.unknownStore, "there is no store \(store)") }
        return schedule
    }

    /// The window of `store` that starts at `start`, serialized once and shared.
    func window(_ schedule: StoreSchedule, start: Int64) async -> WindowFile {
        await windows.value(WindowKey(store: schedule.store.id, start: start)) { [self] in
            let window = ReleaseWindow(schedule: schedule, start: start) { epoch in
                ReleaseKeyChain(seed: seed, store: schedule.store.id, epoch: epoch)
            }
            return WindowFile(bytes: JSONSerializer().bytes(window.json))
        }
    }

    /// The chain of `store` for `epoch`, computed once and shared.
    func chain(_ store: String, epoch: Int64) async -> ReleaseKeyChain {
        await chains.value(ChainKey(store: store, epoch: epoch)) { [seed] in ReleaseKeyChain(seed: seed, store: store, epoch: epoch) }
    }

    struct WindowKey: Hashable, Sendable {
        var store: String
        var start: Int64
    }

    struct ChainKey: Hashable, Sendable {
        var store: String
        var epoch: Int64
    }
}

/// A window ready to send: its bytes, in a buffer every response shares without copying, and
/// their entity tag.
struct WindowFile: Sendable {
    let buffer: ByteBuffer
    let etag: String

    init(bytes: [UInt8]) {
        buffer = ByteBuffer(bytes: bytes)
        etag = "\"" + SHA256.hash(data: bytes).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }
}

/// Why the store could not be set up at start.
public struct ReleaseSetupError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
