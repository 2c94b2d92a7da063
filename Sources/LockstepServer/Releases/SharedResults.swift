import Synchronization

/// Results worth computing once and sharing: the first caller computes, callers that arrive
/// meanwhile wait for the same task, later ones read the stored result. A rush of players at
/// a new window or key so costs one computation.
final class SharedResults<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let tasks = Mutex<[Key: Task<Value, Never>]>([:])
    /// The results computed already, for ``computed(_:)``, which cannot wait.
    private let results = Mutex<[Key: Value]>([:])
    private let capacity: Int
    private let order: @Sendable (Key, Key) -> Bool

    /// Keeps at most `capacity` results; past that, the ones `order` puts first are dropped.
    init(capacity: Int, order: @escaping @Sendable (Key, Key) -> Bool) {
        self.capacity = capacity
        self.order = order
    }

    func value(_ key: Key, compute: @escaping @Sendable () -> Value) async -> Value {
        let task = tasks.withLock { tasks in
            if let running = tasks[key] { return running }
            let task = Task { [self] in
                let value = compute()
                // Kept only while its task is: one dropped meanwhile stays dropped.
                self.tasks.withLock { tasks in
                    if tasks[key] != nil { results.withLock { $0[key] = value } }
                }
                return value
            }
            tasks[key] = task
            if tasks.count > capacity, let oldest = tasks.keys.min(by: order) {
                tasks[oldest] = nil
                results.withLock { $0[oldest] = nil }
            }
            return task
        }
        return await task.value
    }

    /// The result for `key` if it was computed already (and is still kept); `nil` otherwise,
    /// without computing it or waiting.
    func computed(_ key: Key) -> Value? {
        results.withLock { $0[key] }
    }
}
