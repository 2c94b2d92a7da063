import DequeModule
import Synchronization

/// At most so many webhook requests in flight at once: a task takes a slot before it sends and
/// gives it back after; past the limit, tasks wait for a slot in the order they came.
final class RequestSlots: Sendable {
    private struct State {
        var free: Int
        var waiting = Deque<CheckedContinuation<Void, Never>>()
    }

    private let state: Mutex<State>

    init(_ count: Int) {
        state = Mutex(State(free: max(1, count)))
    }

    /// Runs `body` holding a slot.
    func holding<T>(_ body: () async throws -> T) async rethrows -> T {
        await take()
        defer { give() }
        return try await body()
    }

    private func take() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if now { continuation.resume() }
        }
    }

    private func give() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let next = state.waiting.popFirst() else {
                state.free += 1
                return nil
            }
            return next
        }
        next?.resume()
    }
}
