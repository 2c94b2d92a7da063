public import Logging
public import ServiceLifecycle

/// Deletes the history the limits no longer keep, in the background, a few objects at a time.
///
/// Every ``Limits/historyPruneIntervalSeconds`` it walks the objects whose history is longer
/// than ``Limits/retainedVersions``, in batches, each object in a short write of its own (so
/// a change waits at most for one object's pruning, never for a pass), and drops the versions
/// older than ``Limits/historyRetentionSeconds`` beyond the latest ones, and beyond
/// ``Limits/maximumVersionsPerObject`` whatever their age (see ``HistoryPolicy``).
public final class HistoryPruner: Service {
    private let store: any SyncStore
    private let limits: Limits
    private let clock: ServerClockSource
    private let logger: Logger
    /// Objects looked at per batch.
    static let batchSize = 200

    public init(store: any SyncStore, limits: Limits, clock: ServerClockSource, logger: Logger) {
        self.store = store
        self.limits = limits
        self.clock = clock
        self.logger = logger
    }

    public func run() async throws {
        guard limits.historyPruneIntervalSeconds > 0 else { return }
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: .seconds(self.limits.historyPruneIntervalSeconds))) != nil {
                do {
                    try await self.prunePass()
                } catch {
                    self.logger.error("history pruning failed; trying again in \(self.limits.historyPruneIntervalSeconds) s: \(error)")
                }
            }
        }
    }

    /// One pass over every object, at the policy of this moment; returns how many objects lost versions.
    @discardableResult
    public func prunePass() async throws -> Int {
        let policy = HistoryPolicy(limits: limits, now: clock.now())
        var cursor: PruneCursor?
        var pruned = 0
        repeat {
            try Task.checkCancellation()
            let batch = try await store.pruneHistory(after: cursor, limit: Self.batchSize, policy: policy)
            pruned += batch.pruned
            cursor = batch.next
        } while cursor != nil
        if pruned > 0 { logger.info("history pruning: \(pruned) objects lost versions older than the limits keep") }
        return pruned
    }
}
