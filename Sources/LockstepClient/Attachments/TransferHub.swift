import Synchronization

/// Hands transfer progress to every listener, of all transfers or of one blob. A listener
/// that falls behind keeps the latest 256 updates and loses older ones: progress is a level to
/// show, not a log, and the last update of a transfer (its end) is always among the latest.
final class TransferHub: Sendable {
    private struct Listener {
        var sha256: String?
        var continuation: AsyncStream<TransferProgress>.Continuation
    }

    private struct State {
        var nextID = 0
        var listeners: [Int: Listener] = [:]
    }

    private let state = Mutex(State())

    /// Progress from now on: of blob `sha256`, or of every transfer when `nil`.
    func stream(for sha256: String?) -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(256))
        let id = state.withLock { state in
            state.nextID += 1
            state.listeners[state.nextID] = Listener(sha256: sha256, continuation: continuation)
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ progress: TransferProgress) {
        let targets = state.withLock { state in
            state.listeners.values.filter { $0.sha256 == nil || $0.sha256 == progress.attachment.sha256 }.map(\.continuation)
        }
        for continuation in targets { continuation.yield(progress) }
    }

    func finish() {
        let all = state.withLock { state in
            defer { state.listeners = [:] }
            return state.listeners.values.map(\.continuation)
        }
        for continuation in all { continuation.finish() }
    }
}
