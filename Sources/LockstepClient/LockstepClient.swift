public import Foundation
public import Logging

/// A device's connection to a Lockstep (or Simperium-compatible) server: buckets of JSON
/// objects that work offline and stay in step with every other device.
///
/// ```swift
/// let client = try LockstepClient(
///     storeDirectory: URL(filePath: "Library/Lockstep"),
///     server: URL(string: "https://sync.example.com")!, app: "my-app", token: token)
/// let notes = try client.bucket("notes")
/// try await notes.put("groceries", ["title": "Groceries"])   // durable now, synced when it can be
/// await client.sync.start()
/// for await event in notes.events { … }
/// ```
///
/// Everything lives in one SQLite file in `storeDirectory`: each object's local state, its
/// last acknowledged version (its ghost), the outbox of changes not yet acknowledged, and
/// each bucket's cursor. Open one client per store directory, and ``close()`` it when done.
///
/// See <doc:BuildingAnOfflineApp> for a walk through an app that works offline.
public final class LockstepClient: Sendable {
    /// Settings with sensible defaults; most apps change none.
    ///
    /// ```swift
    /// var configuration = LockstepClient.Configuration()
    /// configuration.attachmentCacheSize = 2 << 30          // keep up to 2 GiB of photos
    /// configuration.logger.logLevel = .error
    /// let client = try LockstepClient(
    ///     storeDirectory: directory, server: server, app: "my-app", token: token, configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The streaming endpoint; by default `ws(s)://<server>/sock/1/<app>/websocket`.
        public var socketURL: URL?
        /// Where edit times come from, on the server's clock. By default (`nil`) the client's own
        /// ``LockstepClient/clock``, kept calibrated while it syncs; ``NoEditTimes`` sends none,
        /// and the server orders such changes by arrival.
        public var editTimes: (any EditTimeSource)?
        /// How often a heartbeat goes over the socket; 2.5 intervals of silence drop it.
        public var heartbeatInterval: Duration
        /// Delays between reconnection attempts.
        public var backoff: Backoff
        /// How long to sync over HTTP, at least, before trying the socket again.
        public var pollingWindow: Duration
        /// Objects per index page on first sync (the server caps it, at 1000 by default).
        public var indexPageSize: Int
        /// The most bytes of downloaded attachments kept on the device; the least recently used
        /// go first. Attachments waiting to upload are kept whatever this says.
        public var attachmentCacheSize: Int64
        /// Bytes per upload request: a kill or a dropped connection costs at most this much again.
        public var uploadChunkSize: Int
        /// Where the client logs what it does: reconnects, refusals, failed clock exchanges.
        /// Quiet it with `logger.logLevel = .error`.
        public var logger: Logger
        /// How the client's ``LockstepClient/clock`` talks to the server: its rounds, and the
        /// budget of its continuous calibration over the streaming socket (120 exchanges a
        /// minute until its uncertainty is under 2 ms, then 6; none while the app is in the
        /// background). `clock.continuous.exchangesPerMinute = 0` turns that off.
        public var clock = ServerClock.Configuration()

        /// Settings with every default; pass only those to change.
        ///
        /// - Parameters:
        ///   - socketURL: The streaming endpoint; `nil` derives it from the server's URL.
        ///   - editTimes: Where edit times come from; `nil` uses the client's ``LockstepClient/clock``.
        ///   - heartbeatInterval: How often a heartbeat goes over the socket (10 s).
        ///   - backoff: Delays between reconnection attempts.
        ///   - pollingWindow: How long to sync over HTTP before trying the socket again (5 s).
        ///   - indexPageSize: Objects per index page on first sync (1000).
        ///   - attachmentCacheSize: The most bytes of downloaded attachments kept (512 MiB).
        ///   - uploadChunkSize: Bytes per upload request (2 MiB; at least 1).
        ///   - logger: Where the client logs.
        public init(
            socketURL: URL? = nil, editTimes: (any EditTimeSource)? = nil, heartbeatInterval: Duration = .seconds(10),
            backoff: Backoff = Backoff(), pollingWindow: Duration = .seconds(5), indexPageSize: Int = 1000,
            attachmentCacheSize: Int64 = 512 << 20, uploadChunkSize: Int = 2 << 20,
            logger: Logger = Logger(label: "LockstepClient")
        ) {
            self.socketURL = socketURL
            self.editTimes = editTimes
            self.heartbeatInterval = heartbeatInterval
            self.backoff = backoff
            self.pollingWindow = pollingWindow
            self.indexPageSize = indexPageSize
            self.attachmentCacheSize = attachmentCacheSize
            self.uploadChunkSize = max(1, uploadChunkSize)
            self.logger = logger
        }
    }

    /// This client's id on the server (`clientid`), made once and kept in the store.
    public var clientID: String { replica.clientID }
    /// The changes on their way to the server.
    public let outbox: Outbox
    /// The background sync with the server.
    public let sync: SyncSession
    /// The server's time, calibrated while the client syncs (over the streaming socket while it
    /// is open, over HTTP otherwise; from the start of
    /// ``SyncSession/start()``, again after every reconnect, and continuously while the socket
    /// is open and the app in the foreground, within ``Configuration/clock``'s budget); it
    /// stamps every edit unless ``Configuration/editTimes`` names another source. Its
    /// calibration, the measured drift included, is kept in the store directory across
    /// launches, and dropped after a reboot or a clock step. It follows UIKit's notifications
    /// into and out of the background; elsewhere set its ``ServerClock/applicationState``.
    public let clock: ServerClock

    let replica: Replica
    let attachments: AttachmentCache

    /// Opens (or creates) the local store in `storeDirectory` for `app` on `server`, whose
    /// users authenticate with `token`. Nothing touches the network until ``sync`` starts.
    ///
    /// ```swift
    /// let client = try LockstepClient(
    ///     storeDirectory: URL(filePath: "Library/Lockstep"),
    ///     server: URL(string: "https://sync.example.com")!, app: "my-app", token: token)
    /// ```
    ///
    /// - Parameters:
    ///   - storeDirectory: The directory that holds the store, created if needed. Use one
    ///     directory per user and server: the store belongs to the token's user.
    ///   - server: The server's base URL, e.g. `https://sync.example.com`.
    ///   - app: The app's id on the server.
    ///   - token: The user's access token.
    ///   - configuration: Settings; the defaults suit most apps.
    /// - Throws: What the file system or SQLite threw when the store cannot be created,
    ///   opened or brought up to date (a directory that cannot be written, a file that is not
    ///   a store).
    public init(storeDirectory: URL, server: URL, app: String, token: String, configuration: Configuration = Configuration()) throws {
        let clockSocket = SocketClockExchangeTransport(fallback: HTTPClockExchangeTransport(serverURL: server))
        clock = ServerClock(
            transport: clockSocket, configuration: configuration.clock,
            store: FileClockCalibrationStore(fileURL: storeDirectory.appendingPathComponent("clock.json")),
            logger: configuration.logger)
        clock.followApplicationNotifications()
        replica = try Replica(directory: storeDirectory, editTimes: configuration.editTimes ?? clock)
        outbox = Outbox(replica: replica)
        let base = server.absoluteString.hasSuffix("/") ? String(server.absoluteString.dropLast()) : server.absoluteString
        let socketURL = configuration.socketURL?.absoluteString
            ?? base.replacingOccurrences(of: "http", with: "ws", options: .anchored) + "/sock/1/\(app)/websocket"
        let api = ServerAPI(baseURL: base, app: app, token: token, clientID: replica.clientID)
        attachments = AttachmentCache(replica: replica, api: BlobAPI(api: api), limit: configuration.attachmentCacheSize)
        let uploader = AttachmentUploader(
            replica: replica, api: BlobAPI(api: api), chunkSize: configuration.uploadChunkSize, backoff: configuration.backoff,
            logger: configuration.logger)
        sync = SyncSession(context: SyncContext(
            replica: replica, api: api,
            socketURL: socketURL, app: app, token: token, configuration: configuration, clock: clock, clockSocket: clockSocket, progress: Wakeup(),
            shared: Locked(SyncContext.SharedState()), bucketsChanged: Wakeup(), uploader: uploader))
    }

    /// The bucket named `name`, whose objects are JSON. It syncs from now on, and in later runs.
    ///
    /// ```swift
    /// let notes = try client.bucket("notes")
    /// try await notes.put("groceries", ["title": "Groceries"])
    /// ```
    ///
    /// Opening a bucket is cheap and needs no network: call it wherever a bucket is needed.
    /// - Throws: An error from SQLite when the store cannot record the bucket.
    public func bucket(_ name: String) throws -> Bucket {
        if try replica.register(bucket: name) { sync.context.bucketsChanged.signal() }
        return Bucket(name: name, replica: replica, attachments: attachments, server: sync.context.api)
    }

    /// The bucket named `name`, whose objects are `Value`s, stored as the JSON objects
    /// `JSONEncoder` makes of them.
    ///
    /// ```swift
    /// struct Note: Codable, Sendable { var title: String; var done: Bool }
    /// let notes = try client.bucket("notes", of: Note.self)
    /// ```
    /// - Throws: An error from SQLite when the store cannot record the bucket.
    public func bucket<Value: Codable & Sendable>(_ name: String, of type: Value.Type) throws -> TypedBucket<Value> {
        TypedBucket(raw: try bucket(name))
    }

    /// The options of bucket `name` (shared, read-only, presence), asked of the server now.
    ///
    /// Objects inserted into a presence bucket while the client is streaming are held by its
    /// connection (or its user): the server deletes them when that goes away, and the client
    /// hears the deletions as remote changes. Insert them again after reconnecting, under new keys.
    ///
    /// ```swift
    /// let options = try await client.options(of: "player")
    /// if options.presence != .client { print("player is not a presence bucket") }
    /// ```
    /// - Throws: ``LockstepClientError/unauthorized(_:)`` when the server refuses the token,
    ///   ``LockstepClientError/protocolViolation(_:)`` for an answer it cannot read, and what the
    ///   network threw when the server cannot be reached.
    public func options(of name: String) async throws -> BucketOptions {
        BucketOptions(json: try await sync.context.api.options(bucket: name))
    }

    /// The names of the buckets this store syncs: every one opened with ``bucket(_:)``, in
    /// this run or an earlier one. Read from the store; throws what SQLite threw.
    public var bucketNames: [String] {
        get throws { try replica.bucketNames() }
    }

    /// Stops syncing and ends every event sequence. The store stays on disk for the next run.
    ///
    /// Changes still in the outbox stay there and are sent in a later run; call
    /// ``SyncSession/waitUntilIdle(timeout:)`` first to send them now.
    public func close() async {
        await sync.stop()
        replica.events.finish()
        replica.transfers.finish()
        replica.spaceLosses.finish()
    }
}
