import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import Synchronization

/// The messages waiting to go out on one streaming connection, bounded in bytes, and the one
/// task that writes them in order.
///
/// Everything a connection sends passes through here: replies, errors and the changes the
/// ``ChangeHub`` announces. Announcements cannot wait (the hub calls its subscribers
/// synchronously), so ``enqueue(_:)`` never blocks; instead, a peer that lets more than
/// ``limit`` bytes pile up is a slow reader, and the outbox gives up on it (``onOverflow``)
/// rather than let the server's memory grow. Replies to requests can wait, and do, with
/// ``waitForRoom()``, so a client that asks for a lot (a long catch-up) is paced, not dropped.
final class SocketOutbox: Sendable {
    enum Message: Sendable {
        case text(ByteBuffer)
        /// One change announced live on a channel (its wire JSON): goes out as `N:c:[change]`,
        /// or together with the announcements queued right behind it for the same channel.
        case announcement(channel: Int, change: [UInt8])
        /// A clock exchange reply, `t:<t1>:<t2>:<t3>`, whose send time `t3` is stamped by the
        /// writer just before the frame goes out.
        case clockReply(clientSent: Int64, serverReceived: Int64)
        /// A WebSocket ping, for a peer that went quiet (``SocketHeartbeat``).
        case ping

        var byteCount: Int {
            switch self {
            case .text(let buffer): buffer.readableBytes
            case .announcement(_, let change): change.count + 16
            case .clockReply: 64
            case .ping: 16
            }
        }
    }

    private struct State {
        var queue: [Message] = []
        /// Bytes queued or being written.
        var bytes = 0
        var peakBytes = 0
        var isClosed = false
        /// When the write in progress started; `nil` between writes.
        var writingSince: ContinuousClock.Instant?
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Bytes the queue may hold before its peer counts as a slow reader.
    let limit: Int
    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let onOverflow: @Sendable (_ queuedBytes: Int) -> Void

    /// Frames longer than this go out in fragments: small frames suit every client's frame
    /// limit (16 KiB is swift-websocket's default; node's `websocket` allows 1 MiB).
    static let fragmentBytes = 16 * 1024

    init(limit: Int, onOverflow: @escaping @Sendable (_ queuedBytes: Int) -> Void) {
        self.limit = limit
        self.onOverflow = onOverflow
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a message without waiting. Returns `false` when the outbox is closed, or when this
    /// message overflows it: then the outbox closes and reports the slow reader.
    ///
    /// A message always fits an empty queue, however large, so one big reply never counts as
    /// slowness; the queue holds at most ``limit`` bytes plus one message.
    @discardableResult
    func enqueue(_ message: Message) -> Bool {
        let size = message.byteCount
        let outcome: (accepted: Bool, overflow: Int?, waiters: [CheckedContinuation<Void, Never>]) = state.withLock { state in
            guard !state.isClosed else { return (false, nil, []) }
            if state.bytes > 0 && state.bytes + size > limit {
                let queued = state.bytes
                let waiters = state.roomWaiters
                state.isClosed = true
                state.queue = []
                state.roomWaiters = []
                return (false, queued, waiters)
            }
            state.queue.append(message)
            state.bytes += size
            state.peakBytes = max(state.peakBytes, state.bytes)
            return (true, nil, [])
        }
        if let queued = outcome.overflow {
            for waiter in outcome.waiters { waiter.resume() }
            wake.finish()
            onOverflow(queued + size)
        } else if outcome.accepted {
            wake.yield()
        }
        return outcome.accepted
    }

    /// Waits until the queue is at most half full (or closed): what request handlers do before
    /// producing more output, so their replies are paced by the reader instead of piling up.
    func waitForRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state in
                guard !state.isClosed, state.bytes > limit / 2 else { return false }
                state.roomWaiters.append(continuation)
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    /// Stops accepting messages, drops those not yet written, and ends ``run(writingTo:stamp:)``.
    func close() {
        let waiters = state.withLock { state in
            state.isClosed = true
            state.queue = []
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.resume() }
        wake.finish()
    }

    var peakBytes: Int { state.withLock { $0.peakBytes } }

    /// How long the write in progress has been waiting for the peer to take it, if one is.
    func stalledFor(now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state in state.writingSince.map { now - $0 } }
    }

    /// Writes queued messages in order until the outbox closes or a write fails (the peer is gone).
    ///
    /// - Parameter stamp: the server clock, read for each clock reply just before it is written.
    func run(writingTo outbound: WebSocketOutboundWriter, stamp: @Sendable () -> Int64) async throws {
        for await _ in wakeups {
            while let batch = takeQueued() {
                for frame in Self.frames(of: batch) {
                    guard state.withLock({ state in
                        if !state.isClosed { state.writingSince = .now }
                        return !state.isClosed
                    }) else { return }
                    try await write(frame.message, to: outbound, stamp: stamp)
                    written(frame.byteCount)
                }
            }
        }
    }

    /// Announcements merged into one frame hold at most about this many bytes of changes.
    static let coalescedBytes = 256 * 1024

    /// The frames that carry `batch`, in order: consecutive announcements on one channel share
    /// one `N:c:[…]` frame (up to ``coalescedBytes``), so a reader that fell behind catches up
    /// in a few frames, and a client takes them in one transaction instead of one each.
    /// `byteCount` is what the frame's messages counted in the queue.
    static func frames(of batch: [Message]) -> [(message: Message, byteCount: Int)] {
        var frames: [(message: Message, byteCount: Int)] = []
        var index = batch.startIndex
        while index < batch.endIndex {
            guard case .announcement(let channel, let first) = batch[index] else {
                frames.append((batch[index], batch[index].byteCount))
                index += 1
                continue
            }
            let start = index
            var changes = [first]
            var bytes = first.count
            var byteCount = batch[index].byteCount
            index += 1
            while index < batch.endIndex, case .announcement(channel, let next) = batch[index], bytes + next.count <= coalescedBytes {
                changes.append(next)
                bytes += next.count
                byteCount += batch[index].byteCount
                index += 1
            }
            frames.append((changes.count == 1 ? batch[start] : .text(SocketReply.changes(channel, changes)), byteCount))
        }
        return frames
    }

    private func takeQueued() -> [Message]? {
        state.withLock { state in
            guard !state.isClosed, !state.queue.isEmpty else { return nil }
            defer { state.queue = [] }
            return state.queue
        }
    }

    private func written(_ size: Int) {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.writingSince = nil
            state.bytes -= size
            guard state.bytes <= limit / 2 else { return [] }
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func write(_ message: Message, to outbound: WebSocketOutboundWriter, stamp: @Sendable () -> Int64) async throws {
        var buffer: ByteBuffer
        switch message {
        case .text(let text):
            buffer = text
        case .announcement(let channel, let change):
            buffer = SocketReply.changes(channel, [change])
        case .clockReply(let clientSent, let serverReceived):
            buffer = ByteBuffer(string: "t:\(clientSent):\(serverReceived):\(stamp())")
        case .ping:
            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "lockstep"))))
            return
        }
        guard buffer.readableBytes > Self.fragmentBytes else {
            try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: buffer)))
            return
        }
        try await outbound.withTextMessageWriter { writer in
            while let fragment = buffer.readSlice(length: min(Self.fragmentBytes, buffer.readableBytes)), fragment.readableBytes > 0 {
                try await writer(fragment)
            }
        }
    }
}
