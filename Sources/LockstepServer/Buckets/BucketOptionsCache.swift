import Synchronization

/// Bucket options as read lately: every change a client sends needs its bucket's options (is
/// it shared, read-only?), and they almost never change, so each is read from the store at
/// most once per ``lifetime``. Options set on this node are seen at once; on another node of a
/// PostgreSQL cluster, within ``lifetime``.
final class BucketOptionsCache: Sendable {
    private struct Entry {
        var options: BucketOptions
        var readAt: ContinuousClock.Instant
    }

    private struct Key: Hashable {
        var appID: String
        var bucket: String
    }

    static let lifetime = Duration.seconds(1)
    private let entries = Mutex<[Key: Entry]>([:])
    private let store: any SyncStore

    init(store: any SyncStore) {
        self.store = store
    }

    func options(appID: String, bucket: String) async throws -> BucketOptions {
        if let options = cached(appID: appID, bucket: bucket) { return options }
        let key = Key(appID: appID, bucket: bucket)
        let now = ContinuousClock.now
        let options = try await BucketOptions.read(appID: appID, bucket: bucket, from: store)
        entries.withLock { entries in
            if entries.count > 10_000 { entries.removeAll() }
            entries[key] = Entry(options: options, readAt: now)
        }
        return options
    }

    /// The options read of a bucket within ``lifetime``, without reading them: `nil` when none were.
    func cached(appID: String, bucket: String) -> BucketOptions? {
        let now = ContinuousClock.now
        guard let entry = entries.withLock({ $0[Key(appID: appID, bucket: bucket)] }), now - entry.readAt < Self.lifetime else { return nil }
        return entry.options
    }

    /// Forgets what was read of a bucket whose options just changed.
    func forget(appID: String, bucket: String) {
        _ = entries.withLock { $0.removeValue(forKey: Key(appID: appID, bucket: bucket)) }
    }
}
