import Foundation
import Synchronization

/// What the receiving half of a link hands its sending half: blob requests to send, and blobs
/// the peer asked for, to serve a chunk at a time.
///
/// The sending half is the only writer of a link (sealed messages are numbered in the order
/// they go), so the receiving half never sends itself: it queues here and signals ``wakeup``.
/// Changes go before chunks: the sender serves one chunk, then sends whatever changes
/// arrived meanwhile, then the next chunk, and stops while ``window`` chunks are not yet taken
/// in by the peer.
final class PeerBlobQueue: Sendable {
    /// Chunks sent ahead of the peer's `taken` messages.
    static let window = 8

    private struct State {
        var messages: [[UInt8]] = []
        var serving: [PeerBlobMessage.Request] = []
        var inFlight = 0
    }

    private let state = Mutex(State())
    let wakeup = Wakeup()

    /// Queues a message (a request, a `noBlob`) for the sender.
    func send(_ message: [UInt8]) {
        state.withLock { $0.messages.append(message) }
        wakeup.signal()
    }

    /// Queues blobs the peer asked for; a blob asked again (after a cut) restarts from its new `from`.
    func serve(_ requests: [PeerBlobMessage.Request]) {
        state.withLock { state in
            for request in requests {
                state.serving.removeAll { $0.sha256 == request.sha256 }
                state.serving.append(request)
            }
        }
        wakeup.signal()
    }

    /// The peer took a chunk in: one more may go.
    func taken() {
        state.withLock { $0.inFlight = max(0, $0.inFlight - 1) }
        wakeup.signal()
    }

    func takeMessages() -> [[UInt8]] {
        state.withLock { state in
            defer { state.messages = [] }
            return state.messages
        }
    }

    /// The next chunk to send, as a message (or a `noBlob` when the device lacks the blob),
    /// moving its request on; `nil` when nothing is asked, or the window is full.
    func nextChunk(files: BlobFiles, chunkBytes: Int) throws -> [UInt8]? {
        guard let request = state.withLock({ $0.inFlight < Self.window ? $0.serving.first : nil }) else { return nil }
        guard files.exists(request.sha256) else {
            finish(request)
            return PeerBlobMessage.noBlob(request.sha256)
        }
        let count = Int(min(Int64(chunkBytes), request.size - request.from))
        let bytes = try files.read(request.sha256, offset: request.from, count: count)
        guard bytes.count == count else {
            finish(request)
            return PeerBlobMessage.noBlob(request.sha256)
        }
        let message = PeerBlobMessage.chunk(sha256: request.sha256, offset: request.from, size: request.size, bytes: bytes)
        state.withLock { state in
            state.inFlight += 1
            guard let index = state.serving.firstIndex(of: request) else { return }
            state.serving[index].from += Int64(count)
            if state.serving[index].from >= request.size { state.serving.remove(at: index) }
        }
        return message
    }

    private func finish(_ request: PeerBlobMessage.Request) {
        state.withLock { $0.serving.removeAll { $0 == request } }
    }
}
