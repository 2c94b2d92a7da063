import Synchronization

/// Runs `operation` in a task of its own and returns its result, or `nil` once `limit` has
/// passed or the calling task is cancelled, whichever comes first, without waiting for
/// `operation` to end.
///
/// For calls that may never return. PostgresNIO does not always complete a query sent on a
/// connection that is closing at that moment: awaited from a child task, such a query keeps
/// its task group, and so the relay and the server's shutdown, waiting forever. Here the
/// operation's task is cancelled and left to end on its own; the caller goes on.
func unawaited<T: Sendable>(within limit: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
    let outcome = Outcome<T>()
    let work = Task { outcome.settle(await operation()) }
    let timer = Task {
        try? await Task.sleep(for: limit)
        outcome.settle(nil)
    }
    let result = await withTaskCancellationHandler {
        await outcome.value()
    } onCancel: {
        outcome.settle(nil)
    }
    timer.cancel()
    work.cancel()
    return result
}

/// The first of several answers, and the one task waiting for it.
private final class Outcome<T: Sendable>: Sendable {
    private struct State {
        var answer: T??
        var waiter: CheckedContinuation<T?, Never>?
    }

    private let state = Mutex(State())

    /// Records `answer` if none came before, and hands it to the waiter.
    func settle(_ answer: T?) {
        let waiter = state.withLock { state -> CheckedContinuation<T?, Never>? in
            guard state.answer == nil else { return nil }
            state.answer = .some(answer)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: answer)
    }

    func value() async -> T? {
        await withCheckedContinuation { continuation in
            let answer = state.withLock { state -> T?? in
                guard let answer = state.answer else {
                    state.waiter = continuation
                    return nil
                }
                return .some(answer)
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }
}
