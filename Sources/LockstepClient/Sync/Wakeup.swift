import Synchronization

/// A signal many tasks can follow, each at its own pace: every ``signal()`` starts a new
/// generation, and ``wait(after:)`` returns as soon as the generation is past the one the
/// caller last saw, so no follower misses a signal sent while it was busy.
final class Wakeup: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [Int: (after: UInt64, continuation: CheckedContinuation<UInt64, Never>)] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// The current generation: wait after it to hear of the next signal.
    var generation: UInt64 { state.withLock { $0.generation } }

    func signal() {
        let (generation, waiters) = state.withLock { state in
            state.generation += 1
            defer { state.waiters = [:] }
            return (state.generation, state.waiters.values.map(\.continuation))
        }
        for waiter in waiters { waiter.resume(returning: generation) }
    }

    /// Waits for a generation after `seen` and returns it; returns at once if there is one
    /// already, or when the task is cancelled.
    @discardableResult
    func wait(after seen: UInt64) async -> UInt64 {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<UInt64, Never>) in
                let now: UInt64? = state.withLock { state in
                    if state.generation > seen || Task.isCancelled { return state.generation }
                    state.waiters[id] = (seen, continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state in (state.waiters.removeValue(forKey: id), state.generation) }
            waiter.0?.continuation.resume(returning: waiter.1)
        }
    }
}
