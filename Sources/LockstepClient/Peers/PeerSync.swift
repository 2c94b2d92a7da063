import LockstepCore
public import Logging
import Synchronization

/// Direct sync of one bucket between nearby devices, with or without a server in reach.
///
/// ```swift
/// let items = try client.bucket("items")
/// let peers = PeerSync(client: client, bucket: "items", transport: LocalNetworkTransport())
/// try await peers.prepare()      // while online: fetches the bucket's peer key, kept in the store
/// try await peers.start()        // later, anywhere: finds peers and syncs with each
/// ```
///
/// Devices prove to each other that they hold the bucket's peer key, which the server gives
/// every device whose credentials reach the bucket (the same user's bucket, or a shared bucket
/// of the app) and nobody else; everything after the hello is encrypted under keys derived
/// from it. Each side then sends the changes the other lacks since they last met (its own and
/// those it carries for others), and keeps sending as changes happen. Changes apply by the
/// server's merge rules: a removal is final, and each member goes to its latest writer by
/// corrected time. Every device queues what it received for the server under the author's
/// ccid, so a change reaches the server as soon as any device that holds it gets online, and
/// applies there once however many devices bring it.
///
/// Attachments travel too, in chunks after the changes. Changes that arrive from a peer reach
/// ``Bucket/events`` with origin ``BucketEvent/Origin/peer``. See <doc:SyncingWithNearbyDevices>.
public final class PeerSync: Sendable {
    /// Limits of what peers send each other; the defaults suit phones on Wi-Fi.
    public struct Configuration: Sendable {
        /// The largest message a peer may send (a batch of changes); larger ones end the link.
        public var maximumMessageBytes: Int
        /// Changes per message when catching a peer up.
        public var changesPerMessage: Int
        /// Attachment bytes per chunk sent to a peer (within ``maximumMessageBytes``).
        public var blobChunkBytes: Int
        /// How long a new link may take to prove it holds the peer key before it is closed.
        public var handshakeTimeout: Duration
        /// Where links that end, and why, are logged.
        public var logger: Logger

        /// Settings with every default: messages of up to 4 MiB, 200 changes a message,
        /// attachment chunks of 512 KiB, 10 seconds to prove the peer key.
        public init(
            maximumMessageBytes: Int = 4 << 20, changesPerMessage: Int = 200, handshakeTimeout: Duration = .seconds(10),
            blobChunkBytes: Int = 512 << 10, logger: Logger = Logger(label: "LockstepClient.PeerSync")
        ) {
            self.blobChunkBytes = blobChunkBytes
            self.maximumMessageBytes = maximumMessageBytes
            self.changesPerMessage = changesPerMessage
            self.handshakeTimeout = handshakeTimeout
            self.logger = logger
        }
    }

    /// The name of the bucket this syncs.
    public let bucket: String
    private let client: LockstepClient
    private let transports: [any PeerTransport]
    private let configuration: Configuration
    private let state = Mutex(State())

    private struct State {
        var started = false
        var running: Task<Void, Never>?
        var connected: [String: Int] = [:]
    }

    /// Syncs `bucket` of `client` with the peers every one of `transports` reaches (the local
    /// network and MultipeerConnectivity at once, say).
    public init(client: LockstepClient, bucket: String, transports: [any PeerTransport], configuration: Configuration = Configuration()) {
        self.client = client
        self.bucket = bucket
        self.transports = transports
        self.configuration = configuration
    }

    /// Syncs `bucket` of `client` with the peers `transport` reaches.
    ///
    /// ```swift
    /// let peers = PeerSync(client: client, bucket: "inventory", transport: LocalNetworkTransport())
    /// ```
    ///
    /// Nothing happens until ``start()``.
    public convenience init(client: LockstepClient, bucket: String, transport: any PeerTransport, configuration: Configuration = Configuration()) {
        self.init(client: client, bucket: bucket, transports: [transport], configuration: configuration)
    }

    /// Fetches the bucket's peer key from the server and keeps it in the store, for syncing
    /// with peers later when the server may be out of reach.
    ///
    /// Call it on every sync: a space's bucket's key changes when a writer joins or leaves.
    ///
    /// - Throws: ``LockstepClientError/unauthorized(_:)`` when the server refuses the token, a
    ///   refusal for a bucket this user cannot reach, and what the network threw.
    public func prepare() async throws {
        _ = try await fetchPeerKey()
    }

    private func fetchPeerKey() async throws -> String {
        let key = try await client.sync.context.api.peerKey(bucket: bucket)
        try client.replica.setPeerKey(key, bucket: bucket)
        return key
    }

    /// Starts advertising, finding peers and syncing with each (once: a second call does
    /// nothing until ``stop()``). Uses the stored peer key, or fetches it first; throws
    /// ``PeerSyncError/noPeerKey(bucket:)`` when there is none and the server cannot be reached.
    public func start() async throws {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        do {
            try await begin()
        } catch {
            state.withLock { $0.started = false }
            throw error
        }
    }

    private func begin() async throws {
        var hex = try client.replica.peerKey(bucket: bucket)
        if hex == nil { hex = try? await fetchPeerKey() }
        guard let hex, let peerKey = Hex.decode(hex) else { throw PeerSyncError.noPeerKey(bucket: bucket) }
        _ = try client.bucket(bucket)
        let advertisement = PeerAdvertisement(peerID: client.clientID, tag: PeerKeys.advertisedTag(peerKey: peerKey))
        var linkStreams: [AsyncStream<any PeerLink>] = []
        for transport in transports { linkStreams.append(try await transport.start(advertising: advertisement)) }
        let task = Task { [self, linkStreams] in
            await withTaskGroup(of: Void.self) { group in
                for links in linkStreams {
                    group.addTask {
                        await withTaskGroup(of: Void.self) { sessions in
                            for await link in links { sessions.addTask { await self.serve(link, peerKey: peerKey) } }
                            sessions.cancelAll()
                        }
                    }
                }
            }
        }
        state.withLock { $0.running = task }
    }

    /// Stops advertising and closes every peer link.
    public func stop() async {
        for transport in transports { await transport.stop() }
        let task = state.withLock { state in
            defer {
                state.running = nil
                state.started = false
            }
            return state.running
        }
        task?.cancel()
        await task?.value
    }

    /// The client ids of the peers this device is syncing with now.
    public var connectedPeers: Set<String> {
        state.withLock { Set($0.connected.keys) }
    }

    private func serve(_ link: any PeerLink, peerKey: [UInt8]) async {
        let session = PeerSession(
            link: link, replica: client.replica, bucket: bucket, peerKey: peerKey, configuration: configuration,
            onAuthenticated: { peer in self.state.withLock { $0.connected[peer, default: 0] += 1 } },
            onClosed: { peer in
                self.state.withLock { state in
                    state.connected[peer, default: 1] -= 1
                    if state.connected[peer] == 0 { state.connected[peer] = nil }
                }
            })
        do {
            let peer = try await session.run()
            configuration.logger.debug("peer link closed", metadata: ["peer": "\(peer)"])
        } catch {
            configuration.logger.notice("peer link ended", metadata: ["error": "\(error)"])
        }
    }
}
