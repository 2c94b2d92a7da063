import Synchronization

/// Hands bucket events to every listener of that bucket, after the write that caused them has
/// committed. Listeners that are slow get their events buffered, never dropped.
final class EventHub: Sendable {
    private struct Listeners {
        var nextID = 0
        var byBucket: [String: [Int: AsyncStream<BucketEvent>.Continuation]] = [:]
    }

    private let listeners = Mutex(Listeners())

    func stream(for bucket: String) -> AsyncStream<BucketEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: BucketEvent.self)
        let id = listeners.withLock { listeners in
            listeners.nextID += 1
            listeners.byBucket[bucket, default: [:]][listeners.nextID] = continuation
            return listeners.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.listeners.withLock { _ = $0.byBucket[bucket]?.removeValue(forKey: id) }
        }
        return stream
    }

    /// Whether anyone listens to `bucket`: building events for a 100,000-object index walk is
    /// wasted work when nobody does.
    func isObserved(_ bucket: String) -> Bool {
        listeners.withLock { !($0.byBucket[bucket]?.isEmpty ?? true) }
    }

    func publish(_ events: [BucketEvent]) {
        guard !events.isEmpty else { return }
        let targets = listeners.withLock { $0.byBucket }
        for event in events {
            for continuation in targets[event.bucket]?.values ?? [:].values { continuation.yield(event) }
        }
    }

    func finish() {
        let all = listeners.withLock { listeners in
            defer { listeners.byBucket = [:] }
            return listeners.byBucket.values.flatMap(\.values)
        }
        for continuation in all { continuation.finish() }
    }
}
