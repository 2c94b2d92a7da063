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
        /// Whoever waits for every change to be answered (``drained()``): the connection's
        /// end, and its reader before it answers a change it refused itself.
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
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

    /// Gives a place back: its change is durable, or was refused, and was answered.
    func release() {
        let (admitted, drained) = state.withLock { state -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            state.inFlight -= 1
            var admitted: CheckedContinuation<Void, Never>?
            if let waiter = state.waiter, state.inFlight < limit {
                state.inFlight += 1
                state.waiter = nil
                admitted = waiter
            }
            guard state.inFlight == 0 else { return (admitted, []) }
            defer { state.drainWaiters = [] }
            return (admitted, state.drainWaiters)
        }
        admitted?.resume()
        for waiter in drained { waiter.resume() }
    }

    /// Returns once every change given a place has given it back: what the connection sent is
    /// answered, so whatever follows its end (its presence objects released) follows them too.
    func drained() async {
        await withCheckedContinuation { continuation in
            let isDrained = state.withLock { state in
                guard state.inFlight > 0 else { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if isDrained { continuation.resume() }
        }
    }
}
