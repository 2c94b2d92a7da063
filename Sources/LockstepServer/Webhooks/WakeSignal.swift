import Synchronization

/// A flag one task raises and another waits for, with a time limit: how a delivery worker
/// idle between events hears that its app recorded more.
final class WakeSignal: Sendable {
    private struct State {
        var raised = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func raise() {
        let waiter = state.withLock { state in
            state.raised = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Lowers the flag and answers whether it was raised.
    func take() -> Bool {
        state.withLock { state in
            defer { state.raised = false }
            return state.raised
        }
    }

    /// Waits until the flag is raised or `timeout` passes (or the task is cancelled), then
    /// lowers it and answers whether it was raised.
    func wait(timeout: Duration) async -> Bool {
        if take() { return true }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForRaise() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
        return take()
    }

    private func waitForRaise() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    guard !state.raised, !Task.isCancelled else { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }
}
