import NIOCore
import Synchronization

/// The messages waiting to go out on one streaming connection, bounded in bytes, written in
/// order on the socket's own event loop.
///
/// Everything a connection sends passes through here: replies, errors and the changes the
/// ``ChangeHub`` announces. Announcements cannot wait (the hub calls its subscribers
/// synchronously), so ``enqueue(_:)`` never blocks; instead, a peer that lets more than
/// ``limit`` bytes pile up is a slow reader, and the outbox gives up on it (``onOverflow``)
/// rather than let the server's memory grow. Replies to requests can wait, and do, with
/// ``waitForRoom()``, so a client that asks for a lot (a long catch-up) is paced, not dropped.
///
/// What is queued goes out in one event-loop turn, as one write of all its frames and one
/// flush, as a fast broker writes: no task wakes up per message, and a change announced to a
/// thousand sockets costs a thousand queued writes, not a thousand task hops. A message's
/// bytes count against ``limit`` until the outbox knows the kernel has taken them (which it
/// checks every so many bytes, see ``drain()``), so the bound covers what waits in NIO's
/// buffers too, and a peer that takes nothing shows as a stalled write (``stalledFor(now:)``).
final class SocketOutbox: Sendable {
    enum Message: Sendable {
        case text(ByteBuffer)
        /// One change announced live on a channel, built once for every subscriber on channel `N`
        /// (``ChangeEncodingCache``): `N:c:[change]`, and its WebSocket frame. The frame goes out
        /// as it is, or, in a long run of announcements queued for the same channel (a reader
        /// catching up), the text merged with theirs (``frames(of:)``).
        case announcement(ChangeEncodingCache.Announcement)
        /// A clock exchange reply, `t:<t1>:<t2>:<t3>`, whose send time `t3` is stamped just
        /// before the frame is written.
        case clockReply(clientSent: Int64, serverReceived: Int64)
        /// A WebSocket ping, for a peer that went quiet (``SocketHeartbeat``).
        case ping

        var byteCount: Int {
            switch self {
            case .text(let buffer): buffer.readableBytes
            case .announcement(let announcement): announcement.text.readableBytes
            case .clockReply: 64
            case .ping: 16
            }
        }
    }

    private struct State {
        var queue: [Message] = []
        /// The array the last drain emptied, kept for the queue to fill again without allocating.
        var spare: [Message] = []
        /// Bytes queued, or written and not yet taken by the kernel.
        var bytes = 0
        var peakBytes = 0
        var isClosed = false
        /// Whether a turn of the event loop will take what is queued.
        var isDrainScheduled = false
        /// Bytes written while no drain was tracked, which the kernel may not all have taken.
        var unconfirmedBytes = 0
        /// Tracked drains whose bytes the kernel has not all taken yet.
        var drainsInFlight = 0
        /// When a drain in flight last went out whole (or the first was written); `nil` with none in flight.
        var lastProgress: ContinuousClock.Instant?
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Bytes the queue may hold before its peer counts as a slow reader.
    let limit: Int
    private let channel: any Channel
    private let writer: NIOLoopBound<SocketFrameWriter>
    /// Paces the drains of live changes, which arrive in a ``DrainBatch``; other messages drain at once.
    private let pacer: DrainPacer
    private let state = Mutex(State())
    private let stamp: @Sendable () -> Int64
    private let onOverflow: @Sendable (_ queuedBytes: Int) -> Void
    private let onWriteFailure: @Sendable () -> Void

    /// Frames longer than this go out in fragments: small frames suit every client's frame
    /// limit (16 KiB is swift-websocket's default; node's `websocket` allows 1 MiB).
    static let fragmentBytes = 16 * 1024

    /// Announcements merged into one frame hold at most about this many bytes of changes.
    static let coalescedBytes = 256 * 1024

    /// - Parameters:
    ///   - channel: the upgraded WebSocket channel.
    ///   - writer: the handler at the head of its pipeline that writes the frames; this is made
    ///     on the channel's event loop.
    ///   - pacer: the pacer of the channel's event loop.
    ///   - stamp: the server clock, read for each clock reply just before it is written.
    ///   - onOverflow: told of a slow reader, once, when the outbox closes because of it.
    ///   - onWriteFailure: told once that a write failed (the peer is gone); the outbox is closed.
    init(
        channel: any Channel, writer: SocketFrameWriter, limit: Int, pacer: DrainPacer, stamp: @escaping @Sendable () -> Int64,
        onOverflow: @escaping @Sendable (_ queuedBytes: Int) -> Void, onWriteFailure: @escaping @Sendable () -> Void
    ) {
        self.channel = channel
        self.writer = NIOLoopBound(writer, eventLoop: channel.eventLoop)
        self.limit = limit
        self.pacer = pacer
        self.stamp = stamp
        self.onOverflow = onOverflow
        self.onWriteFailure = onWriteFailure
    }

    /// Queues a message without waiting. Returns `false` when the outbox is closed, or when this
    /// message overflows it: then the outbox closes and reports the slow reader.
    ///
    /// A message always fits an empty queue, however large, so one big reply never counts as
    /// slowness; the queue holds at most ``limit`` bytes plus one message. Bytes written but not
    /// yet confirmed taken (see ``drain()``, fewer than ``confirmedBytes``) do not count here: a
    /// peer that keeps up has most likely taken them, and one that does not is found out at the
    /// next confirmation.
    @discardableResult
    func enqueue(_ message: Message) -> Bool {
        let size = message.byteCount
        enum Outcome { case queued(schedulesDrain: Bool), closed, overflowed(queued: Int) }
        let outcome: Outcome = state.withLock { state in
            guard !state.isClosed else { return .closed }
            let waiting = state.bytes - state.unconfirmedBytes
            if waiting > 0 && waiting + size > limit {
                return .overflowed(queued: waiting)
            }
            state.queue.append(message)
            state.bytes += size
            state.peakBytes = max(state.peakBytes, state.bytes)
            defer { state.isDrainScheduled = true }
            return .queued(schedulesDrain: !state.isDrainScheduled)
        }
        switch outcome {
        case .queued(let schedulesDrain):
            guard schedulesDrain else { return true }
            if DrainBatch.current?.add(self, pacedBy: pacer) != true {
                channel.eventLoop.execute { self.drain() }
            }
            return true
        case .closed:
            return false
        case .overflowed(let queued):
            if finish() { onOverflow(queued + size) }
            return false
        }
    }

    /// Queues `message` behind every change the hub has announced to this socket so far.
    ///
    /// The hub tells a socket's channels of a change on the socket's event loop (see
    /// ``ChangeHub/subscribe(_:on:_:)``), so an announcement may still wait for the loop's turn
    /// when the change is answered; a refusal queued at once could overtake it. This queues the
    /// message on the loop too, behind it.
    func enqueueAfterAnnouncements(_ message: Message) {
        DrainBatch.onLoop(channel.eventLoop) { self.enqueue(message) }
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
            if !waiting { return continuation.resume() }
            // Unconfirmed bytes may be all that fills the queue, and no drain may follow to confirm them.
            channel.eventLoop.execute { self.confirm() }
        }
    }

    /// Stops accepting messages and drops those not yet written.
    func close() {
        finish()
    }

    var peakBytes: Int { state.withLock { $0.peakBytes } }

    /// The socket's event loop, where its frames are written.
    var eventLoop: any EventLoop { channel.eventLoop }

    /// How long the peer has taken none of the frames written to it, if any wait.
    func stalledFor(now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state in state.lastProgress.map { now - $0 } }
    }

    /// Closes the outbox and releases whoever waits for room; `false` when it was closed already.
    @discardableResult
    private func finish() -> Bool {
        let waiters: [CheckedContinuation<Void, Never>]? = state.withLock { state in
            guard !state.isClosed else { return nil }
            state.isClosed = true
            state.queue = []
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume() }
        return true
    }

    /// On the event loop: writes everything queued, one frame per message or run of
    /// announcements, and flushes once.
    ///
    /// A peer that keeps up takes each drain during its flush. Its drains are not followed one
    /// by one (a promise made, listened to and freed for each was a quarter of what a delivery
    /// cost): their bytes count as unconfirmed until ``confirm()`` asks NIO, every
    /// ``confirmedBytes`` or whenever someone waits for room, whether it still holds any. Once it
    /// does, the peer is behind, and drains are tracked: a promise on a drain's last write (the
    /// kernel takes a socket's writes in order, so when it has the last it has them all) tells
    /// when its bytes are taken, and every drain after it is tracked too, until none waits.
    func drain() {
        // Taken whole, the queue's array stays this function's alone, to be emptied and kept.
        var batch: [Message] = []
        let isTracked: Bool? = state.withLock { state in
            state.isDrainScheduled = false
            guard !state.isClosed, !state.queue.isEmpty else { return nil }
            swap(&batch, &state.spare)
            swap(&batch, &state.queue)
            return state.drainsInFlight > 0
        }
        guard let isTracked else { return }
        let bytes = batch.reduce(0) { $0 + $1.byteCount }
        let writer = writer.value
        // Each frame is written once the next is known, so that the last one can carry the promise.
        var held: ByteBuffer?
        func write(_ message: Message) {
            for frame in encoded(message) {
                if let previous = held { writer.write(previous, promise: nil) }
                held = frame
            }
        }
        // Too few messages for a run to merge (one is the usual live announcement, two or three
        // a paced drain's): they go out as they are.
        if batch.count < Self.mergedRunMinimum {
            for message in batch { write(message) }
        } else {
            for message in Self.frames(of: batch) { write(message) }
        }
        writer.write(held ?? ByteBuffer(), promise: isTracked ? track(bytes) : nil)
        writer.flush()
        // Emptied, the batch's array becomes the queue's next one.
        batch.removeAll(keepingCapacity: true)
        guard !isTracked else { return state.withLock { $0.spare = batch } }
        let confirms = state.withLock { state in
            state.spare = batch
            state.unconfirmedBytes += bytes
            return state.unconfirmedBytes >= confirmedBytes || !state.roomWaiters.isEmpty
        }
        if confirms { confirm() }
    }

    /// Unconfirmed bytes (see ``drain()``) that make the outbox ask NIO whether it holds any:
    /// an eighth of ``limit`` at most, so that a peer counts as a slow reader no more than that early.
    private var confirmedBytes: Int { min(limit / 8, 64 * 1024) }

    /// On the event loop: finds out whether the kernel took the unconfirmed bytes. When NIO
    /// holds none, they are taken; otherwise an empty write behind them, tracked, tells when.
    func confirm() {
        let size = state.withLock { state in
            defer { state.unconfirmedBytes = 0 }
            return state.unconfirmedBytes
        }
        guard size > 0 else { return }
        let writer = writer.value
        if writer.bufferedBytes == 0 { return taken(size) }
        writer.write(ByteBuffer(), promise: track(size))
        writer.flush()
    }

    /// A promise for `size` bytes that wait for the kernel: it counts them taken when it
    /// completes, and the stall from now if no other drain waited.
    private func track(_ size: Int) -> EventLoopPromise<Void> {
        state.withLock { state in
            if state.drainsInFlight == 0 { state.lastProgress = .now }
            state.drainsInFlight += 1
        }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { result in
            self.state.withLock { state in
                state.drainsInFlight -= 1
                state.lastProgress = state.drainsInFlight > 0 ? .now : nil
            }
            self.taken(size)
            if case .failure = result, self.finish() { self.onWriteFailure() }
        }
        return promise
    }

    /// On the event loop: the kernel took `size` bytes.
    private func taken(_ size: Int) {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.bytes -= size
            guard state.bytes <= limit / 2 else { return [] }
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The frames that carry `batch`, in order: a run of at least ``mergedRunMinimum``
    /// consecutive announcements on one channel shares one `N:c:[…]` frame (up to
    /// ``coalescedBytes``), so a reader that fell behind catches up in a few frames, and a
    /// client takes them in one transaction instead of one each. A shorter run goes out as the
    /// frames built for every subscriber, in the same write.
    static func frames(of batch: [Message]) -> [Message] {
        var frames: [Message] = []
        var index = batch.startIndex
        while index < batch.endIndex {
            guard case .announcement(let first) = batch[index] else {
                frames.append(batch[index])
                index += 1
                continue
            }
            let start = index
            index += 1
            while index < batch.endIndex, case .announcement(let next) = batch[index], next.channel == first.channel {
                index += 1
            }
            guard index - start >= mergedRunMinimum else {
                frames += batch[start..<index]
                continue
            }
            var chunk: [ByteBuffer] = []
            var bytes = 0
            for case .announcement(let announcement) in batch[start..<index] {
                let text = announcement.text
                if !chunk.isEmpty, bytes + text.readableBytes > coalescedBytes {
                    frames.append(.text(SocketReply.merging(first.channel, chunk)))
                    chunk = []
                    bytes = 0
                }
                chunk.append(text)
                bytes += text.readableBytes
            }
            frames.append(.text(SocketReply.merging(first.channel, chunk)))
        }
        return frames
    }

    /// The fewest announcements in a row that ``frames(of:)`` merges into one frame. A merged
    /// frame is built for each socket (an allocation and a copy of every change in it), while an
    /// announcement's frame is built once for all of them; the two or three changes a paced
    /// drain holds (``DrainPacer``) go out in one write either way. Eight or more are a reader
    /// catching up, which then takes a few large frames instead of many.
    static let mergedRunMinimum = 8

    /// The WebSocket frames of one message: an announcement's own, already built; a text
    /// message longer than ``fragmentBytes`` in fragments.
    private func encoded(_ message: Message) -> [ByteBuffer] {
        switch message {
        case .text(let text):
            ServerFrame.fragments(of: text, fragmentBytes: Self.fragmentBytes)
        case .announcement(let announcement):
            announcement.frames
        case .clockReply(let clientSent, let serverReceived):
            [ServerFrame.framing(ByteBuffer(string: "t:\(clientSent):\(serverReceived):\(stamp())"))]
        case .ping:
            [ServerFrame.framing(ByteBuffer(string: "lockstep"), opcode: .ping)]
        }
    }
}
