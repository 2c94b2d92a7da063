public import Foundation
public import LockstepCore
public import Logging

/// Everything a request handler needs, built once per server.
public struct LockstepServices: Sendable {
    public let store: any SyncStore
    public let accounts: AccountService
    public let buckets: BucketService
    public let hub: ChangeHub
    /// The open streaming connections, and hooks on their lives.
    public let connections: ConnectionRegistry
    public let limits: Limits
    public let clock: ServerClockSource
    public let logger: Logger
    /// Deletes presence buckets' objects when their connection or user goes away.
    public let presence: PresenceService
    /// Deletes the history the limits no longer keep, in the background.
    public let pruner: HistoryPruner
    let optionsCache: BucketOptionsCache
    /// Closes the sockets of revoked and expired tokens.
    public let tokenWatch: TokenWatch
    /// Spaces and their members.
    public let spaces: SpaceService
    /// The channels open on spaces' buckets, which end when their member loses the space.
    public let spaceChannels: SpaceChannels
    /// Blobs (attachments), kept under a directory; `nil` when the server was given none.
    public let blobs: BlobService?
    /// The timed store, when the server was given a store configuration.
    public var releases: ReleaseService?
    /// The proxies whose `X-Forwarded-For` names the caller; none by default.
    public var trustedProxies = TrustedProxies()
    /// Who may read `GET /metrics`, and where.
    public var metrics = MetricsAccess()
    /// When these services were made (the server's start, for the console's uptime).
    public let startedAt: Int64
    /// What moves in each app, for the console's live views.
    let consoleSignals: ConsoleSignals
    /// Paces the writes of live changes to each event loop's sockets.
    var drainPacers: DrainPacers

    /// - Parameter blobDirectory: where blobs are kept (every node of a PostgreSQL deployment
    ///   must see the same directory); `nil` keeps none, and refuses every reference to one.
    public init(store: any SyncStore, limits: Limits, clock: ServerClockSource, logger: Logger, blobDirectory: URL? = nil) {
        self.store = store
        self.limits = limits
        self.clock = clock
        self.logger = logger
        self.hub = ChangeHub()
        self.drainPacers = DrainPacers(lingerSeconds: limits.announcementLingerSeconds)
        self.startedAt = clock.now()
        let optionsCache = BucketOptionsCache(store: store)
        self.optionsCache = optionsCache
        let connections = ConnectionRegistry()
        self.connections = connections
        let consoleSignals = ConsoleSignals()
        consoleSignals.follow(hub: hub, connections: connections)
        self.consoleSignals = consoleSignals
        let tokenWatch = TokenWatch(store: store, connections: connections, clock: clock, limits: limits, logger: logger)
        self.tokenWatch = tokenWatch
        self.accounts = AccountService(
            store: store, limits: limits, now: { clock.now() }, onRevoked: { hashes in tokenWatch.revoked(hashes) })
        let spaceChannels = SpaceChannels()
        self.spaceChannels = spaceChannels
        let spaces = SpaceService(store: store, channels: spaceChannels, connections: connections, limits: limits, now: { clock.now() })
        self.spaces = spaces
        let blobs = blobDirectory.map { BlobService(directory: BlobDirectory(root: $0), store: store, limits: limits) }
        self.blobs = blobs
        let buckets = BucketService(store: store, hub: hub, limits: limits, clock: clock, blobs: blobs, spaces: spaces, logger: logger)
        self.buckets = buckets
        self.pruner = HistoryPruner(store: store, limits: limits, clock: clock, logger: logger)
        self.presence = PresenceService(
            environment: .init(
                store: store, buckets: buckets,
                options: { appID, bucket in try await optionsCache.options(appID: appID, bucket: bucket) },
                cachedOptions: { appID, bucket in optionsCache.cached(appID: appID, bucket: bucket) },
                clock: clock, logger: logger,
                orphanSweepInterval: .seconds(max(0.5, limits.heartbeatTimeoutSeconds / 2)),
                claimsChanged: { appID in consoleSignals.signal(appID, .claims) }),
            connections: connections)
    }

    /// The options of a bucket, defaults when none were set (read at most once a second).
    public func options(appID: String, bucket: String) async throws -> BucketOptions {
        try await optionsCache.options(appID: appID, bucket: bucket)
    }

    /// Sets a bucket's options.
    public func setOptions(appID: String, bucket: String, options: JSONObject) async throws {
        try await store.setBucketOptions(appID: appID, bucket: bucket, options: options)
        optionsCache.forget(appID: appID, bucket: bucket)
    }
}

/// The server's clock: nanoseconds since the Unix epoch, optionally shifted by a fixed offset
/// so tests and benchmarks can check that clients find a known, non-zero offset.
public struct ServerClockSource: Sendable {
    /// The shift added to the real time; non-zero only with the testing-only `--clock-offset-ms`.
    public var offsetNanoseconds: Int64

    public init(offsetNanoseconds: Int64 = 0) {
        self.offsetNanoseconds = offsetNanoseconds
    }

    public func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec) + offsetNanoseconds
    }
}
