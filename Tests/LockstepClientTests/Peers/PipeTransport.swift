import LockstepClient
import Synchronization

/// A peer transport within one process: ``link(to:)`` joins two of them with a pair of
/// in-memory pipes, as two phones that meet. It stands for a second kind of transport (as
/// MultipeerConnectivity would on a phone) and shows the protocol is all a transport needs.
final class PipeTransport: PeerTransport {
    private let state = Mutex<(links: AsyncStream<any PeerLink>.Continuation?, open: [PipeLink])>((nil, []))

    func start(advertising advertisement: PeerAdvertisement) async throws -> AsyncStream<any PeerLink> {
        let (links, continuation) = AsyncStream.makeStream(of: (any PeerLink).self)
        state.withLock { $0.links = continuation }
        return links
    }

    func stop() async {
        let (continuation, open) = state.withLock { state in
            defer { state = (nil, []) }
            return state
        }
        for link in open { link.close() }
        continuation?.finish()
    }

    /// Joins this transport to `other`, both started: each gets one end of a new link.
    func link(to other: PipeTransport) {
        let (near, far) = PipeLink.pair()
        accept(near)
        other.accept(far)
    }

    /// Hands `link` to this transport's peer sync, as if a peer had connected.
    func accept(_ link: PipeLink) {
        state.withLock { state in
            state.open.append(link)
            return state.links
        }?.yield(link)
    }
}

final class PipeLink: PeerLink {
    let isInitiator: Bool
    let incoming: AsyncThrowingStream<[UInt8], any Error>
    private let inbox: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let peerInbox: Mutex<AsyncThrowingStream<[UInt8], any Error>.Continuation?>

    private init(isInitiator: Bool, incoming: AsyncThrowingStream<[UInt8], any Error>, inbox: AsyncThrowingStream<[UInt8], any Error>.Continuation) {
        self.isInitiator = isInitiator
        self.incoming = incoming
        self.inbox = inbox
        peerInbox = Mutex(nil)
    }

    static func pair() -> (PipeLink, PipeLink) {
        let (toNear, nearInbox) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        let (toFar, farInbox) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        let near = PipeLink(isInitiator: true, incoming: toNear, inbox: nearInbox)
        let far = PipeLink(isInitiator: false, incoming: toFar, inbox: farInbox)
        near.peerInbox.withLock { $0 = farInbox }
        far.peerInbox.withLock { $0 = nearInbox }
        return (near, far)
    }

    func send(_ message: [UInt8]) async throws {
        guard let peer = peerInbox.withLock({ $0 }), case .enqueued = peer.yield(message) else { throw CancellationError() }
    }

    /// Ends both directions, as a dropped connection does.
    func close() {
        inbox.finish()
        peerInbox.withLock { $0 }?.finish()
    }
}
