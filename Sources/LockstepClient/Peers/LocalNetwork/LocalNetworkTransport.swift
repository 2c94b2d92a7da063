public import NIOCore
import NIOPosix
import Synchronization

/// Peers on the same local network, over TCP, found by UDP multicast announcements.
///
/// Each device listens on a TCP port and multicasts `{peer, tag, port}` to a group every
/// ``Configuration/announceInterval``; a device that hears a peer with its own tag dials it if
/// its id is the smaller of the two, so each pair shares one connection. Where multicast does
/// not reach (some guest Wi-Fi blocks it), name peers in ``Configuration/peers``. Runs
/// wherever SwiftNIO does: Linux, macOS, iOS.
///
/// ```swift
/// let transport = LocalNetworkTransport()
/// try await PeerSync(client: client, bucket: "inventory", transport: transport).start()
/// print("teammates can dial port \(transport.port ?? 0)")
/// ```
public final class LocalNetworkTransport: PeerTransport {
    /// Where to listen, how to announce, and whom to dial.
    ///
    /// ```swift
    /// var configuration = LocalNetworkTransport.Configuration(port: 7700, peers: [(host: "10.0.0.12", port: 7700)])
    /// configuration.multicastGroup = nil      // a network that blocks multicast
    /// ```
    public struct Configuration: Sendable {
        /// The address to accept peers on; all interfaces by default.
        public var host: String
        /// The TCP port to accept peers on; 0 picks a free one (see ``LocalNetworkTransport/port``).
        public var port: Int
        /// The multicast group and port announcements go to; `nil` turns discovery off.
        public var multicastGroup: SocketAddress?
        /// How often this device announces itself to the multicast group.
        public var announceInterval: Duration
        /// Peers to dial whether or not they are heard: `(host, port)`.
        public var peers: [(host: String, port: Int)]
        /// The largest message accepted from a peer.
        public var maximumFrameBytes: Int

        /// Settings with every default: all interfaces, a free port, announcements to
        /// 239.255.76.83:7683 every 2 seconds, no named peers, messages of up to 4 MiB.
        public init(
            host: String = "0.0.0.0", port: Int = 0,
            multicastGroup: SocketAddress? = try? SocketAddress(ipAddress: "239.255.76.83", port: 7683),
            announceInterval: Duration = .seconds(2), peers: [(host: String, port: Int)] = [],
            maximumFrameBytes: Int = 4 << 20 + 64
        ) {
            self.host = host
            self.port = port
            self.multicastGroup = multicastGroup
            self.announceInterval = announceInterval
            self.peers = peers
            self.maximumFrameBytes = maximumFrameBytes
        }
    }

    private struct State {
        var server: (any Channel)?
        var discovery: (any Channel)?
        var announcing: Task<Void, Never>?
        var links: AsyncStream<any PeerLink>.Continuation?
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Peers (by id, or `host:port` for named ones) with a link this side dialled, open or opening.
        var dialled: Set<String> = []
        /// Peers named by ``LocalNetworkTransport/connect(host:port:)``.
        var named: [(host: String, port: Int)] = []
    }

    private let configuration: Configuration
    private let group: any EventLoopGroup
    private let state = Mutex(State())

    /// A transport with `configuration`; it listens and announces only from ``start(advertising:)``.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        group = MultiThreadedEventLoopGroup.singleton
    }

    /// The TCP port peers reach this device on, once started.
    public var port: Int? {
        state.withLock { $0.server?.localAddress?.port }
    }

    /// Listens on the configured port, announces `advertisement`, dials the named peers and
    /// those heard with the same tag. ``PeerSync`` calls it.
    ///
    /// Throws what SwiftNIO threw when the port cannot be bound.
    public func start(advertising advertisement: PeerAdvertisement) async throws -> AsyncStream<any PeerLink> {
        let (links, continuation) = AsyncStream.makeStream(of: (any PeerLink).self)
        state.withLock { $0.links = continuation }
        let maximumFrameBytes = configuration.maximumFrameBytes
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [weak self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let (incoming, messages) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
                    try TCPPeerLink.configure(channel, maximumFrameBytes: maximumFrameBytes, into: messages)
                    self?.opened(TCPPeerLink(channel: channel, isInitiator: false, incoming: incoming), on: channel, dialled: nil)
                }
            }
            .bind(host: configuration.host, port: configuration.port).get()
        state.withLock { $0.server = server }
        guard let port = server.localAddress?.port else { throw PeerSyncError.protocolViolation("no listening port") }

        let announcement = PeerAnnouncement(peerID: advertisement.peerID, tag: advertisement.tag, port: port)
        let discovery: (any Channel)?
        if let multicastGroup = configuration.multicastGroup {
            discovery = try await joinDiscovery(multicastGroup) { [weak self] heard in
                guard heard.tag == advertisement.tag, heard.peerID != advertisement.peerID,
                    advertisement.dials(heard.peerID), let host = heard.host
                else { return }
                self?.dial(host: host, port: heard.port, as: heard.peerID)
            }
        } else {
            discovery = nil
        }
        let announcing = Task { [weak self, configuration] in
            while !Task.isCancelled {
                if let discovery, let multicastGroup = configuration.multicastGroup {
                    discovery.writeAndFlush(AddressedEnvelope(remoteAddress: multicastGroup, data: ByteBuffer(bytes: announcement.bytes)), promise: nil)
                }
                let named = self?.state.withLock { $0.named } ?? []
                for peer in configuration.peers + named { self?.dial(host: peer.host, port: peer.port, as: "\(peer.host):\(peer.port)") }
                try? await Task.sleep(for: configuration.announceInterval)
            }
        }
        state.withLock { state in
            state.discovery = discovery
            state.announcing = announcing
        }
        return links
    }

    /// Dials the peer at `host` and `port` now, and again whenever its link is down, until
    /// ``stop()``: for peers multicast does not reach (an address scanned from a QR code, say).
    public func connect(host: String, port: Int) {
        state.withLock { $0.named.append((host, port)) }
        dial(host: host, port: port, as: "\(host):\(port)")
    }

    /// Stops listening and announcing, and closes every link.
    public func stop() async {
        let (channels, announcing, links) = state.withLock { state in
            defer { state = State() }
            return ([state.server, state.discovery].compactMap { $0 } + state.channels.values, state.announcing, state.links)
        }
        announcing?.cancel()
        for channel in channels { try? await channel.close() }
        links?.finish()
    }

    private func joinDiscovery(_ multicastGroup: SocketAddress, heard: @escaping @Sendable (PeerAnnouncement) -> Void) async throws -> any Channel {
        let channel = try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AnnouncementListener(heard: heard)) }
            }
            .bind(host: multicastGroup.protocol == .inet6 ? "::" : "0.0.0.0", port: multicastGroup.port ?? 0).get()
        guard let multicast = channel as? any MulticastChannel else {
            try? await channel.close()
            throw PeerSyncError.protocolViolation("this platform's UDP channels cannot join multicast groups")
        }
        try await multicast.joinGroup(multicastGroup).get()
        return channel
    }

    /// Dials a peer unless a link this side dialled to it is open or opening.
    private func dial(host: String, port: Int, as peer: String) {
        guard state.withLock({ $0.links != nil && $0.dialled.insert(peer).inserted }) else { return }
        let maximumFrameBytes = configuration.maximumFrameBytes
        let (incoming, messages) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        let connecting = ClientBootstrap(group: group)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try TCPPeerLink.configure(channel, maximumFrameBytes: maximumFrameBytes, into: messages)
                }
            }
            .connect(host: host, port: port)
        connecting.whenComplete { [weak self] result in
            switch result {
            case .success(let channel):
                self?.opened(TCPPeerLink(channel: channel, isInitiator: true, incoming: incoming), on: channel, dialled: peer)
            case .failure:
                messages.finish()
                _ = self?.state.withLock { $0.dialled.remove(peer) }
            }
        }
    }

    private func opened(_ link: TCPPeerLink, on channel: any Channel, dialled peer: String?) {
        let id = ObjectIdentifier(channel)
        let continuation = state.withLock { state in
            state.channels[id] = channel
            return state.links
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLock { state in
                state.channels[id] = nil
                if let peer { state.dialled.remove(peer) }
            }
        }
        guard let continuation else {
            channel.close(promise: nil)
            return
        }
        continuation.yield(link)
    }
}
