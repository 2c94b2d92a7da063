import Synchronization

/// How many of one connection's changes may wait for their group commit at once.
///
/// A client that sends changes without waiting for each acknowledgement (a phone coming back
/// online with a backlog) has them queued for the store's writer as they are read, so they
/// share flushes with each other and with every other connection's. Past
/// ``Limits/maximumChangesInFlight`` the connection's reader waits for the oldest to be
/// durable, so one client never queues without bound; TCP then slows it down.
final class ChangePipeline: Sendable {
    private let limit: Int
    private let state = Mutex(State())

    private struct State {
        var inFlight = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a place for one change, waiting while the pipeline is full. Returns at once when
    /// the task is cancelled (the connection is closing).
    func reserve() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let admitted = state.withLock { state in
                    if state.inFlight < limit || Task.isCancelled {
                        state.inFlight += 1
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if admitted { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                if state.waiter != nil { state.inFlight += 1 }
                return state.waiter
            }?.resume()
        }
    }

    /// Gives a place back: its change is durable, or was refused.
    func release() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.inFlight -= 1
            guard let waiter = state.waiter, state.inFlight < limit else { return nil }
            state.inFlight += 1
            state.waiter = nil
            return waiter
        }?.resume()
    }
}
