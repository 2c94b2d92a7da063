import HummingbirdWebSocket
import Synchronization

/// The messages one streaming connection has received and not yet handled, bounded in bytes:
/// one task reads the socket into it, the connection's ``SocketDispatcher`` takes from it.
///
/// Reading apart from handling keeps the WebSocket read while a message is handled. The
/// WebSocket layer answers pings and notes pongs only as it reads; if it read only when the
/// dispatcher asked for the next message, a client that pipelines changes faster than they
/// commit would have its pong wait behind them, and the server's automatic ping would close
/// a live connection as dead. Past ``limit`` bytes the reader waits, and TCP slows the client.
final class SocketInbox: Sendable {
    struct Received: Sendable {
        var message: WebSocketMessage
        /// The server clock when the message was read, for clock exchanges.
        var receivedAt: Int64

        var byteCount: Int {
            switch message {
            case .text(let text): text.utf8.count
            case .binary(let buffer): buffer.readableBytes
            }
        }
    }

    private struct State {
        var waiting: [Received] = []
        var head = 0
        var bytes = 0
        var isFinished = false
        var failure: (any Error)?
        var taker: CheckedContinuation<Received?, any Error>?
        var putter: (continuation: CheckedContinuation<Void, Never>, bytes: Int)?
    }

    /// Bytes the inbox holds before the reader waits; one message always fits an empty inbox.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Adds a message, first waiting (unless cancelled) until it fits. One task puts, and it
    /// alone finishes the inbox.
    func put(_ received: Received) async {
        let size = received.byteCount
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let fits = state.withLock { state in
                    guard state.bytes > 0, state.bytes + size > limit, !Task.isCancelled else { return true }
                    state.putter = (continuation, size)
                    return false
                }
                if fits { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in defer { state.putter = nil }; return state.putter?.continuation }?.resume()
        }
        let taker = state.withLock { state -> CheckedContinuation<Received?, any Error>? in
            if let taker = state.taker {
                state.taker = nil
                return taker
            }
            state.waiting.append(received)
            state.bytes += size
            return nil
        }
        taker?.resume(returning: received)
    }

    /// No more messages: the socket ended, or failed with `failure`, which ``next()`` throws
    /// once the messages before it are taken.
    func finish(throwing failure: (any Error)? = nil) {
        let (taker, putter) = state.withLock { state in
            state.isFinished = true
            state.failure = failure
            defer { state.taker = nil; state.putter = nil }
            return (state.taker, state.putter?.continuation)
        }
        putter?.resume()
        if let failure { taker?.resume(throwing: failure) } else { taker?.resume(returning: nil) }
    }

    /// The oldest message not yet taken; `nil` once the socket ended and every message was taken.
    func next() async throws -> Received? {
        try await withCheckedThrowingContinuation { continuation in
            let (outcome, putter) = state.withLock { state -> (Result<Received?, any Error>?, CheckedContinuation<Void, Never>?) in
                guard state.head < state.waiting.count else {
                    if state.isFinished { return (state.failure.map { .failure($0) } ?? .success(nil), nil) }
                    state.taker = continuation
                    return (nil, nil)
                }
                let received = state.waiting[state.head]
                state.head += 1
                state.bytes -= received.byteCount
                if state.head == state.waiting.count {
                    state.waiting.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                var putter: CheckedContinuation<Void, Never>?
                if let waiting = state.putter, state.bytes == 0 || state.bytes + waiting.bytes <= limit {
                    putter = waiting.continuation
                    state.putter = nil
                }
                return (.success(received), putter)
            }
            putter?.resume()
            if let outcome { continuation.resume(with: outcome) }
        }
    }
}
