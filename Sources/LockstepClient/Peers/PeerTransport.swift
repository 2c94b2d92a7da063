/// How peers find and reach each other: the local network, MultipeerConnectivity, or anything
/// else that carries messages between two devices.
///
/// A transport only moves bytes. ``PeerSync`` authenticates every link and encrypts every
/// message itself, so a transport need not be trusted: a stranger who reaches a link can
/// neither read what passes over it nor inject anything.
///
/// ``LocalNetworkTransport`` works everywhere SwiftNIO does; `MultipeerTransport` on Apple
/// platforms. A transport of your own (Bluetooth LE, a USB cable) yields a ``PeerLink`` for every
/// peer it reaches, and need only deliver whole messages in order.
public protocol PeerTransport: Sendable {
    /// Starts advertising this device and looking for peers that advertise the same tag;
    /// yields a link for every peer reached, dialled or accepted, until ``stop()``.
    func start(advertising advertisement: PeerAdvertisement) async throws -> AsyncStream<any PeerLink>

    /// Stops advertising and accepting, and closes every link.
    func stop() async
}

/// What a device announces to nearby peers.
public struct PeerAdvertisement: Sendable, Hashable {
    /// The device's client id.
    public var peerID: String
    /// Derived from the bucket's peer key: peers with the same tag can sync with each other;
    /// the tag reveals nothing of the key.
    public var tag: String

    /// An advertisement; ``PeerSync`` makes it from the client id and the bucket's peer key.
    public init(peerID: String, tag: String) {
        self.peerID = peerID
        self.tag = tag
    }

    /// Of two peers that find each other, the one with the smaller id dials, so they share one link.
    public func dials(_ other: String) -> Bool {
        peerID.utf8.lexicographicallyPrecedes(other.utf8)
    }
}

/// One two-way message channel to a peer, as a transport delivers it.
public protocol PeerLink: Sendable {
    /// Whether this side opened the link; the two sides derive their keys in opposite roles.
    var isInitiator: Bool { get }
    /// The messages the peer sends, whole and in order; the sequence ends when the link closes.
    var incoming: AsyncThrowingStream<[UInt8], any Error> { get }
    /// Sends one whole message; throws when the link is closed or broken.
    func send(_ message: [UInt8]) async throws
    /// Closes the link: ``incoming`` ends on both sides.
    func close()
}
