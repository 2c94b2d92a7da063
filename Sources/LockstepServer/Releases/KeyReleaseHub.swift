public import LockstepCore
import Synchronization

/// Every key release as it happens: at each moment some slot of some store changes item,
/// the key released at that moment, for the streaming socket to push to its clients.
///
/// ```swift
/// for await key in services.releases!.hub.releases() {
///     send("release:" + key.json.description)   // {"epoch":…,"index":…,"key":"…","store":"main","time":…}
/// }
/// ```
///
/// One timer serves every subscriber: it runs while someone listens and stops with the last
/// one. It never publishes a key before its time (it checks the server clock on waking), and a
/// subscriber that falls behind keeps only the newest keys, which open all the earlier ones.
public final class KeyReleaseHub: Sendable {
    private struct State {
        var nextID = 0
        var subscribers: [Int: AsyncStream<ReleasedKey>.Continuation] = [:]
        var timer: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let schedules: [StoreSchedule]
    private let now: @Sendable () -> Int64
    private let key: @Sendable (String, ChainPosition) async -> [UInt8]

    init(schedules: [StoreSchedule], now: @escaping @Sendable () -> Int64, key: @escaping @Sendable (String, ChainPosition) async -> [UInt8]) {
        self.schedules = schedules
        self.now = now
        self.key = key
    }

    /// The keys released from now on, in order, until the stream is dropped.
    public func releases() -> AsyncStream<ReleasedKey> {
        let (stream, continuation) = AsyncStream.makeStream(of: ReleasedKey.self, bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            if state.timer == nil { state.timer = Task { [weak self] in await self?.run() } }
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return stream
    }

    /// How many streams are listening.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    private func unsubscribe(_ id: Int) {
        let timer = state.withLock { state -> Task<Void, Never>? in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty else { return nil }
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }

    private func run() async {
        var last = now() / 1_000_000
        while !Task.isCancelled {
            let next = schedules.map { $0.nextChange(after: last) }.min() ?? last + ReleaseKeyChain.tickMilliseconds
            let wait = next * 1_000_000 - now()
            if wait > 0 {
                do { try await Task.sleep(for: .nanoseconds(wait)) } catch { return }
                // Woken early (sleeps may round), so look again rather than publish too soon.
                if now() < next * 1_000_000 { continue }
            }
            for schedule in schedules where schedule.nextChange(after: next - 1) == next {
                let position = ChainPosition(releasedAt: next)
                publish(ReleasedKey(store: schedule.store.id, position: position, key: await key(schedule.store.id, position)))
            }
            last = next
        }
    }

    private func publish(_ key: ReleasedKey) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(key) }
    }
}
