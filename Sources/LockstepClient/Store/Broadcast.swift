import Synchronization

/// Hands what the client publishes (transfer progress, lost spaces) to every listener from
/// now on, each with a filter of its own, until the client closes.
final class Broadcast<Element: Sendable>: Sendable {
    private struct Listener {
        var wants: @Sendable (Element) -> Bool
        var continuation: AsyncStream<Element>.Continuation
    }

    private struct State {
        var nextID = 0
        var listeners: [Int: Listener] = [:]
    }

    private let state = Mutex(State())

    /// What is published from now on that `wants` takes, buffered by `buffering`.
    func stream(
        buffering: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded, where wants: @escaping @Sendable (Element) -> Bool = { _ in true }
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: buffering)
        let id = state.withLock { state in
            state.nextID += 1
            state.listeners[state.nextID] = Listener(wants: wants, continuation: continuation)
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ element: Element) {
        let targets = state.withLock { state in state.listeners.values.filter { $0.wants(element) }.map(\.continuation) }
        for continuation in targets { continuation.yield(element) }
    }

    func finish() {
        let all = state.withLock { state in
            defer { state.listeners = [:] }
            return state.listeners.values.map(\.continuation)
        }
        for continuation in all { continuation.finish() }
    }
}
