#if canImport(MultipeerConnectivity)
public import Foundation
public import MultipeerConnectivity
import Synchronization

/// Peers nearby over Apple's MultipeerConnectivity: infrastructure Wi-Fi, peer-to-peer Wi-Fi
/// and Bluetooth, with no network set up at all.
///
/// Every device advertises and browses the `lockstep-peer` service with its bucket tag in the
/// discovery info; of two devices with the same tag, the one with the smaller id invites the
/// other. MultipeerConnectivity's own encryption is on, but ``PeerSync`` does not rely on it:
/// it authenticates and encrypts every link itself, as on any transport.
///
/// Apps list `_lockstep-peer._tcp` and `_lockstep-peer._udp` under `NSBonjourServices` and
/// describe `NSLocalNetworkUsageDescription` in their Info.plist.
///
/// ```swift
/// let peers = PeerSync(client: client, bucket: "inventory", transports: [MultipeerTransport(), LocalNetworkTransport()])
/// ```
public final class MultipeerTransport: NSObject, PeerTransport, @unchecked Sendable {
    // @unchecked: MultipeerConnectivity calls the delegate methods on its own queues; every
    // piece of mutable state is behind `state`.
    /// The Bonjour service type the transport advertises and browses.
    public static let serviceType = "lockstep-peer"

    private struct State {
        var session: MCSession?
        var advertiser: MCNearbyServiceAdvertiser?
        var browser: MCNearbyServiceBrowser?
        var advertisement: PeerAdvertisement?
        var continuation: AsyncStream<any PeerLink>.Continuation?
        var invited: Set<MCPeerID> = []
        var links: [MCPeerID: MultipeerLink] = [:]
    }

    private let state = Mutex(State())

    /// A transport; it advertises and browses only from ``start(advertising:)``.
    override public init() {
        super.init()
    }

    /// Advertises `advertisement` and browses for peers with the same tag. ``PeerSync`` calls it.
    public func start(advertising advertisement: PeerAdvertisement) async throws -> AsyncStream<any PeerLink> {
        let (links, continuation) = AsyncStream.makeStream(of: (any PeerLink).self)
        let me = MCPeerID(displayName: String(advertisement.peerID.prefix(63)))
        let session = MCSession(peer: me, securityIdentity: nil, encryptionPreference: .required)
        let info = ["peer": advertisement.peerID, "tag": advertisement.tag]
        let advertiser = MCNearbyServiceAdvertiser(peer: me, discoveryInfo: info, serviceType: Self.serviceType)
        let browser = MCNearbyServiceBrowser(peer: me, serviceType: Self.serviceType)
        session.delegate = self
        advertiser.delegate = self
        browser.delegate = self
        state.withLock { state in
            state = State(
                session: session, advertiser: advertiser, browser: browser, advertisement: advertisement, continuation: continuation)
        }
        advertiser.startAdvertisingPeer()
        browser.startBrowsingForPeers()
        return links
    }

    /// Stops advertising and browsing, and disconnects every peer.
    public func stop() async {
        let stopped = state.withLock { state in
            defer { state = State() }
            return state
        }
        stopped.advertiser?.stopAdvertisingPeer()
        stopped.browser?.stopBrowsingForPeers()
        stopped.session?.disconnect()
        for link in stopped.links.values { link.finish() }
        stopped.continuation?.finish()
    }
}

extension MultipeerTransport: MCNearbyServiceBrowserDelegate {
    /// Invites a peer that advertises the same tag, if this side is the one that dials.
    public func browser(_ browser: MCNearbyServiceBrowser, foundPeer peerID: MCPeerID, withDiscoveryInfo info: [String: String]?) {
        let session: MCSession? = state.withLock { state in
            guard let advertisement = state.advertisement, let session = state.session,
                info?["tag"] == advertisement.tag, let other = info?["peer"], advertisement.dials(other),
                state.links[peerID] == nil, state.invited.insert(peerID).inserted
            else { return nil }
            return session
        }
        if let session { browser.invitePeer(peerID, to: session, withContext: nil, timeout: 15) }
    }

    /// Nothing to do: a lost peer's link ends through its session.
    public func browser(_ browser: MCNearbyServiceBrowser, lostPeer peerID: MCPeerID) {}
}

extension MultipeerTransport: MCNearbyServiceAdvertiserDelegate {
    /// Accepts every invitation while started: ``PeerSync``'s handshake turns away peers
    /// without the bucket's peer key.
    public func advertiser(
        _ advertiser: MCNearbyServiceAdvertiser, didReceiveInvitationFromPeer peerID: MCPeerID, withContext context: Data?,
        invitationHandler: @escaping (Bool, MCSession?) -> Void
    ) {
        // Anyone may connect: a peer that lacks the bucket's peer key fails PeerSync's handshake.
        let session = state.withLock { $0.session }
        invitationHandler(session != nil, session)
    }
}

extension MultipeerTransport: MCSessionDelegate {
    /// Yields a link when a peer connects, and ends it when the peer disconnects.
    public func session(_ session: MCSession, peer peerID: MCPeerID, didChange change: MCSessionState) {
        switch change {
        case .connected:
            let (link, continuation) = state.withLock { state -> (MultipeerLink?, AsyncStream<any PeerLink>.Continuation?) in
                guard state.links[peerID] == nil else { return (nil, nil) }
                let link = MultipeerLink(session: session, peer: peerID, isInitiator: state.invited.contains(peerID))
                state.links[peerID] = link
                return (link, state.continuation)
            }
            if let link { continuation?.yield(link) }
        case .notConnected:
            let link = state.withLock { state in
                state.invited.remove(peerID)
                return state.links.removeValue(forKey: peerID)
            }
            link?.finish()
        default:
            break
        }
    }

    /// Hands a message to the peer's link.
    public func session(_ session: MCSession, didReceive data: Data, fromPeer peerID: MCPeerID) {
        state.withLock { $0.links[peerID] }?.deliver(Array(data))
    }

    /// Unused: messages go as data, never as streams.
    public func session(_ session: MCSession, didReceive stream: InputStream, withName streamName: String, fromPeer peerID: MCPeerID) {}

    /// Unused: messages go as data, never as resources.
    public func session(
        _ session: MCSession, didStartReceivingResourceWithName resourceName: String, fromPeer peerID: MCPeerID, with progress: Progress
    ) {}

    /// Unused: messages go as data, never as resources.
    public func session(
        _ session: MCSession, didFinishReceivingResourceWithName resourceName: String, fromPeer peerID: MCPeerID, at localURL: URL?,
        withError error: (any Error)?
    ) {}
}

/// One connected peer of the transport's session; messages go as reliable data.
final class MultipeerLink: PeerLink, @unchecked Sendable {
    // @unchecked: MCSession and MCPeerID are thread-safe but not marked Sendable.
    let isInitiator: Bool
    let incoming: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let session: MCSession
    private let peer: MCPeerID

    init(session: MCSession, peer: MCPeerID, isInitiator: Bool) {
        self.session = session
        self.peer = peer
        self.isInitiator = isInitiator
        (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    }

    func send(_ message: [UInt8]) async throws {
        try session.send(Data(message), toPeers: [peer], with: .reliable)
    }

    func close() {
        session.cancelConnectPeer(peer)
        finish()
    }

    func deliver(_ message: [UInt8]) {
        continuation.yield(message)
    }

    func finish() {
        continuation.finish()
    }
}
#endif
