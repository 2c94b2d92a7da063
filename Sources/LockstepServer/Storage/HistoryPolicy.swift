/// How much of each object's history a store keeps: every version younger than an age, at
/// least the latest few, at most a cap (see ``Limits/historyRetentionSeconds``,
/// ``Limits/retainedVersions`` and ``Limits/maximumVersionsPerObject``).
public struct HistoryPolicy: Sendable, Equatable {
    /// Versions whose change committed at or after this server time (nanoseconds since the
    /// Unix epoch) are kept.
    public var keepSince: Int64
    /// How many of the latest versions are kept whatever their age.
    public var keepLatest: Int
    /// The most versions kept, however young.
    public var keepAtMost: Int

    public init(keepSince: Int64, keepLatest: Int, keepAtMost: Int) {
        self.keepSince = keepSince
        self.keepLatest = keepLatest
        self.keepAtMost = keepAtMost
    }

    /// The policy of `limits` at server time `now`.
    public init(limits: Limits, now: Int64) {
        self.init(
            keepSince: now - Int64(limits.historyRetentionSeconds * 1e9), keepLatest: max(1, limits.retainedVersions),
            keepAtMost: max(limits.retainedVersions, limits.maximumVersionsPerObject))
    }

    /// The oldest version of an object to keep, given its latest version and the oldest of its
    /// versions young enough to keep by age (`nil` when none is).
    public func oldestKept(latest: Int, oldestYoung: Int?) -> Int {
        let byCount = latest - keepLatest + 1
        let byAge = oldestYoung ?? latest + 1
        return max(min(byCount, byAge), latest - keepAtMost + 1, 1)
    }
}

/// What one pass of the pruner over a batch of objects did, and where the next batch starts.
public struct HistoryPruning: Sendable, Equatable {
    /// How many objects had history beyond what is always kept, and were looked at.
    public var examined: Int
    /// How many of them lost versions.
    public var pruned: Int
    /// The last object looked at: the next batch starts after it; `nil` when the pass is over.
    public var next: PruneCursor?

    public init(examined: Int, pruned: Int, next: PruneCursor?) {
        self.examined = examined
        self.pruned = pruned
        self.next = next
    }
}

/// Where a pruning pass stands: objects are visited in order of app, owner, bucket and key.
public struct PruneCursor: Sendable, Hashable {
    public var appID: String
    public var owner: String
    public var bucket: String
    public var key: String

    public init(appID: String, owner: String, bucket: String, key: String) {
        self.appID = appID
        self.owner = owner
        self.bucket = bucket
        self.key = key
    }
}
