import NIOCore
import Synchronization

/// The outboxes that announcements filled while the hub delivered a change (or a group of
/// changes), gathered by event loop, so that each event loop is woken once to drain them all
/// instead of once per socket (and, under load, once per ``DrainPacer/linger``).
///
/// A change for a thousand subscribers on two event loops then costs two wakeups, not up to a
/// thousand: an event loop woken by the first socket's drain went back to sleep between the
/// next ones and was woken again, about twenty context switches a change at 100 subscribers.
final class DrainBatch: Sendable {
    @TaskLocal static var current: DrainBatch?

    private struct Pending {
        /// By event loop (its pacer), found by identity: there are as many as cores, and a
        /// search of a few costs less than hashing for each outbox.
        var byLoop: [(pacer: DrainPacer, outboxes: [SocketOutbox])] = []
        var isWoken = false
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

    /// `outbox` needs a drain, paced by `pacer` (its event loop's). Returns `false` once the
    /// batch has woken its event loops: a task started during the delivery inherits the batch
    /// (``current`` is task-local) and may enqueue long after, and then drains on its own.
    func add(_ outbox: SocketOutbox, pacedBy pacer: DrainPacer) -> Bool {
        pending.withLock { pending in
            guard !pending.isWoken else { return false }
            if let index = pending.byLoop.firstIndex(where: { $0.pacer === pacer }) {
                pending.byLoop[index].outboxes.append(outbox)
            } else {
                pending.byLoop.append((pacer, [outbox]))
            }
            return true
        }
    }

    private func wake() {
        let batches = pending.withLock { pending in
            pending.isWoken = true
            defer { pending.byLoop = [] }
            return pending.byLoop
        }
        for (pacer, outboxes) in batches { pacer.drain(outboxes) }
    }
}
