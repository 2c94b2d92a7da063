public import Foundation
public import LockstepCore
public import Logging

/// Everything a request handler needs, built once per server.
public struct LockstepServices: Sendable {
    public var store: any SyncStore { parts.store }
    public var accounts: AccountService { parts.accounts }
    public var buckets: BucketService { parts.buckets }
    public var hub: ChangeHub { parts.hub }
    /// The open streaming connections, and hooks on their lives.
    public var connections: ConnectionRegistry { parts.connections }
    public var limits: Limits { parts.limits }
    public var clock: ServerClockSource { parts.clock }
    public var logger: Logger { parts.logger }
    /// Deletes presence buckets' objects when their connection or user goes away.
    public var presence: PresenceService { parts.presence }
    /// Deletes the history the limits no longer keep, in the background.
    public var pruner: HistoryPruner { parts.pruner }
    var optionsCache: BucketOptionsCache { parts.optionsCache }
    /// Closes the sockets of revoked and expired tokens.
    public var tokenWatch: TokenWatch { parts.tokenWatch }
    /// Spaces and their members.
    public var spaces: SpaceService { parts.spaces }
    /// The channels open on spaces' buckets, which end when their member loses the space.
    public var spaceChannels: SpaceChannels { parts.spaceChannels }
    /// Blobs (attachments), kept under a directory; `nil` when the server was given none.
    public var blobs: BlobService? { parts.blobs }
    /// The apps' webhook endpoints (the admin API's side).
    public var webhooks: WebhookService { parts.webhooks }
    /// Delivers webhook events, beside the HTTP server.
    public var webhookDispatcher: WebhookDispatcher { parts.webhookDispatcher }
    /// Records the webhook events that are not changes.
    var webhookRecorder: WebhookRecorder { parts.webhookRecorder }
    /// When these services were made (the server's start, for the console's uptime).
    public var startedAt: Int64 { parts.startedAt }
    /// What moves in each app, for the console's live views.
    var consoleSignals: ConsoleSignals { parts.consoleSignals }
    /// The timed store, when the server was given a store configuration.
    public var releases: ReleaseService?
    /// The proxies whose `X-Forwarded-For` names the caller; none by default.
    public var trustedProxies = TrustedProxies()
    /// Who may read `GET /metrics`, and where.
    public var metrics = MetricsAccess()
    /// The web pages of other sites that may use the API and the socket; none by default.
    public var origins = OriginPolicy()
    /// A folder served as a static site (`--static-dir`): a page and its modules that use the
    /// API from the server's own origin. A request the API answers with 404 is looked up there,
    /// and `/` is its `index.html` if it has one (see ``StaticSiteMiddleware``). None by default.
    public var staticDirectory: String?
    /// Paces the writes of live changes to each event loop's sockets.
    var drainPacers: DrainPacers

    /// What never changes once the services are made, behind one reference: the services are
    /// copied wherever a request or a change goes, and copying (then releasing) twenty
    /// references took 3–4 % of the server's CPU per change in `bench store`.
    private let parts: Parts

    private final class Parts: Sendable {
        let store: any SyncStore
        let accounts: AccountService
        let buckets: BucketService
        let hub: ChangeHub
        let connections: ConnectionRegistry
        let limits: Limits
        let clock: ServerClockSource
        let logger: Logger
        let presence: PresenceService
        let pruner: HistoryPruner
        let optionsCache: BucketOptionsCache
        let tokenWatch: TokenWatch
        let spaces: SpaceService
        let spaceChannels: SpaceChannels
        let blobs: BlobService?
        let startedAt: Int64
        let consoleSignals: ConsoleSignals
        let webhooks: WebhookService
        let webhookDispatcher: WebhookDispatcher
        let webhookRecorder: WebhookRecorder

        init(store: any SyncStore, limits: Limits, clock: ServerClockSource, logger: Logger, blobDirectory: URL?, jwksCertificateAuthorities: String?) {
            self.store = store
            self.limits = limits
            self.clock = clock
            self.logger = logger
            self.hub = ChangeHub()
            self.startedAt = clock.now()
            let optionsCache = BucketOptionsCache(store: store)
            self.optionsCache = optionsCache
            let connections = ConnectionRegistry()
            self.connections = connections
            let consoleSignals = ConsoleSignals()
            consoleSignals.follow(hub: hub, connections: connections)
            self.consoleSignals = consoleSignals
            let webhookDispatcher = WebhookDispatcher(
                store: store, limits: limits.webhooks, clock: clock, logger: logger, hub: hub,
                progress: { appID in consoleSignals.signal(appID, .webhooks) })
            self.webhookDispatcher = webhookDispatcher
            webhooks = WebhookService(store: store, limits: limits.webhooks, clock: clock, dispatcher: webhookDispatcher)
            let webhookRecorder = WebhookRecorder(store: store, clock: clock, logger: logger)
            webhookRecorder.onRecorded { [weak webhookDispatcher] appID in webhookDispatcher?.wake(appID: appID) }
            self.webhookRecorder = webhookRecorder
            let tokenWatch = TokenWatch(store: store, connections: connections, clock: clock, limits: limits, logger: logger)
            self.tokenWatch = tokenWatch
            self.accounts = AccountService(
                store: store, limits: limits, now: { clock.now() }, onRevoked: { hashes in tokenWatch.revoked(hashes) },
                jwksCertificateAuthorities: jwksCertificateAuthorities)
            let spaceChannels = SpaceChannels()
            self.spaceChannels = spaceChannels
            let spaces = SpaceService(
                store: store, channels: spaceChannels, connections: connections, limits: limits, now: { clock.now() }, webhooks: webhookRecorder)
            self.spaces = spaces
            let blobs = blobDirectory.map { BlobService(directory: BlobDirectory(root: $0), store: store, limits: limits, webhooks: webhookRecorder) }
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
                    claimsChanged: { appID in consoleSignals.signal(appID, .claims) }, webhooks: webhookRecorder),
                connections: connections)
        }
    }

    /// - Parameters:
    ///   - blobDirectory: where blobs are kept (every node of a PostgreSQL deployment must see
    ///     the same directory); `nil` keeps none, and refuses every reference to one.
    ///   - jwksCertificateAuthorities: a PEM file of certificate authorities trusted, beside the
    ///     system's, when apps' identity providers' JWKS are fetched (`--jwks-ca-file`).
    public init(
        store: any SyncStore, limits: Limits, clock: ServerClockSource, logger: Logger, blobDirectory: URL? = nil,
        jwksCertificateAuthorities: String? = nil
    ) {
        parts = Parts(
            store: store, limits: limits, clock: clock, logger: logger, blobDirectory: blobDirectory,
            jwksCertificateAuthorities: jwksCertificateAuthorities)
        drainPacers = DrainPacers(lingerSeconds: limits.announcementLingerSeconds)
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
