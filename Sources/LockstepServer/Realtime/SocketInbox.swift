import DequeModule
import Synchronization

/// The messages one streaming connection has received and not yet handled, bounded in bytes.
///
/// The socket's event loop puts messages in as their frames arrive (``SocketFrameReader``); a
/// task takes them out and handles them in order, one at a time. That task exists only while
/// there is something to handle: the put that finds nobody serving says so, and its caller
/// starts one; the take that finds the inbox empty ends it. An idle connection holds no task.
///
/// Reading apart from handling keeps the socket read while a message is handled, so pings,
/// pongs and the heartbeat's arrivals are taken as they come. Past ``limit`` bytes the put says
/// the inbox is full, and the reader stops reading until a take makes room: TCP slows the client.
final class SocketInbox: Sendable {
    struct Received: Sendable {
        var message: SocketInput
        /// The server clock when the message was read, for clock exchanges.
        var receivedAt: Int64
    }

    /// What a put asks of its caller.
    struct Admission: Equatable {
        /// Nobody serves the inbox: the caller starts the task that does.
        var startServing: Bool
        /// The inbox holds ``limit`` bytes or more: read nothing more until a take makes room.
        var isFull: Bool
    }

    /// What the serving task gets from ``take()``.
    enum Taken {
        /// The next message; `resumeReading` when this take made room for a reader that stopped.
        case message(Received, resumeReading: Bool)
        /// Nothing waits: the serving task ends, and the next put starts another.
        case idle
        /// The socket ended and every message was taken: the serving task closes the connection.
        case finished
    }

    private struct State {
        var waiting: Deque<Received> = []
        var bytes = 0
        var isFinished = false
        var isServing = false
        /// Whether a put found the inbox full, so that the reader stopped.
        var readerStopped = false
    }

    /// Bytes the inbox holds before the reader stops; one message always fits an empty inbox.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Adds a message. Messages put after ``finish()`` are dropped.
    func put(_ received: Received) -> Admission {
        state.withLock { state in
            guard !state.isFinished else { return Admission(startServing: false, isFull: false) }
            state.waiting.append(received)
            state.bytes += received.message.byteCount
            let isFull = state.bytes >= limit
            if isFull { state.readerStopped = true }
            defer { state.isServing = true }
            return Admission(startServing: !state.isServing, isFull: isFull)
        }
    }

    /// No more messages: the socket ended. Returns whether the caller starts a serving task, to
    /// close the connection (nobody serves now); otherwise the serving task closes it after the
    /// messages that wait.
    func finish() -> Bool {
        state.withLock { state in
            guard !state.isFinished else { return false }
            state.isFinished = true
            defer { state.isServing = true }
            return !state.isServing
        }
    }

    /// For the serving task only: the oldest message not yet taken, or why there is none.
    func take() -> Taken {
        state.withLock { state in
            guard let received = state.waiting.popFirst() else {
                if state.isFinished { return .finished }
                state.isServing = false
                return .idle
            }
            state.bytes -= received.message.byteCount
            let resume = state.readerStopped && state.bytes < limit
            if resume { state.readerStopped = false }
            return .message(received, resumeReading: resume)
        }
    }
}

/// A complete message a streaming client sent: the protocol is text; a binary message is
/// answered with an error, so only its size is kept.
enum SocketInput: Sendable, Equatable {
    case text(String)
    case binary(byteCount: Int)

    var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let byteCount): byteCount
        }
    }
}
