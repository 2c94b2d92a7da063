import NIOCore
import Synchronization

/// What the hub's announcement of a change (or of a group of changes) leaves for event loops,
/// gathered by loop, so that each loop is woken once for all of it instead of once per socket
/// (and, under load, once per ``DrainPacer/linger``): the outboxes to drain, and the work to
/// run there (``onLoop(_:_:)``: telling a loop's subscribers, queueing for a loop's sockets).
///
/// A change for a thousand subscribers on two event loops then costs two wakeups, not up to a
/// thousand: an event loop woken by the first socket's drain went back to sleep between the
/// next ones and was woken again, about twenty context switches a change at 100 subscribers.
final class DrainBatch: Sendable {
    @TaskLocal static var current: DrainBatch?

    /// What waits for one event loop.
    private struct LoopShare {
        let loop: any EventLoop
        /// The loop's pacer, which drains ``outboxes``; `nil` while there are none.
        var pacer: DrainPacer?
        var outboxes: [SocketOutbox] = []
        /// Work to run there, in the order it was given.
        var work: [@Sendable () -> Void] = []
    }

    private struct Pending {
        /// Found by the loop's identity: there are as many as cores, and a search of a few
        /// costs less than hashing for each outbox.
        var byLoop: [LoopShare] = []
        var isWoken = false

        /// The index of `loop`'s share, added if it has none yet.
        mutating func share(of loop: any EventLoop) -> Int {
            if let index = byLoop.firstIndex(where: { $0.loop === loop }) { return index }
            byLoop.append(LoopShare(loop: loop))
            return byLoop.count - 1
        }
    }

    private let pending = Mutex(Pending())

    private init() {}

    /// Runs `body`, during which every outbox that needs a drain asks this batch; then wakes
    /// each event loop once to drain its outboxes. Nested calls join the outermost batch.
    static func gathering<Result>(_ body: () throws -> Result) rethrows -> Result {
        if current != nil { return try body() }
        let batch = DrainBatch()
        defer { batch.wake() }
        return try $current.withValue(batch) { try body() }
    }

    /// Runs `work` on `loop`: at once when this is `loop`'s thread, otherwise in the loop's
    /// turn that the current batch (or, with none, this call) wakes it for. A loop's work runs
    /// in the order it was given, in a batch of its own, so what it queues is written in that
    /// same turn.
    static func onLoop(_ loop: any EventLoop, _ work: @escaping @Sendable () -> Void) {
        if loop.inEventLoop { return work() }
        if current?.defer(work, to: loop) == true { return }
        loop.execute { gathering(work) }
    }

    /// Keeps `work` for `loop`'s wakeup. Returns `false` once the batch has woken its loops.
    private func `defer`(_ work: @escaping @Sendable () -> Void, to loop: any EventLoop) -> Bool {
        pending.withLock { pending in
            guard !pending.isWoken else { return false }
            pending.byLoop[pending.share(of: loop)].work.append(work)
            return true
        }
    }

    /// `outbox` needs a drain, paced by `pacer` (its event loop's). Returns `false` once the
    /// batch has woken its event loops: a task started during the delivery inherits the batch
    /// (``current`` is task-local) and may enqueue long after, and then drains on its own.
    func add(_ outbox: SocketOutbox, pacedBy pacer: DrainPacer) -> Bool {
        pending.withLock { pending in
            guard !pending.isWoken else { return false }
            let index = pending.share(of: pacer.loop)
            pending.byLoop[index].pacer = pacer
            pending.byLoop[index].outboxes.append(outbox)
            return true
        }
    }

    private func wake() {
        let shares = pending.withLock { pending in
            pending.isWoken = true
            defer { pending.byLoop = [] }
            return pending.byLoop
        }
        for share in shares {
            if !share.work.isEmpty {
                let work = share.work
                share.loop.execute {
                    Self.gathering {
                        for item in work { item() }
                    }
                }
            }
            share.pacer?.drain(share.outboxes)
        }
    }
}
