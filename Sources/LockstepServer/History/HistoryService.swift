public import LockstepCore

/// History people can use: an object's versions with who made each and when, any two of them
/// compared, an object put back to a version, a bucket put back to a moment.
///
/// A restore is a change like any other (so every device receives it, and history records it
/// with its author), made against the version current when it was asked for: an edit a device
/// makes meanwhile rebases over it, or it over the edit, by the merge rules, and nothing either
/// way is lost. Who may do what is the routes' to check (``HistoryRoutes``); this reads and
/// writes the scope it is given.
public struct HistoryService: Sendable {
    let services: LockstepServices

    public init(services: LockstepServices) {
        self.services = services
    }

    private var store: any SyncStore { services.store }

    // MARK: Versions

    /// The most versions one page holds.
    static let maximumVersionPage = 100

    /// A page of an object's retained versions, newest first.
    public struct Page: Sendable {
        /// The object as it is now.
        public var object: StoredObject
        public var versions: [VersionRecord]
        /// Where the next (older) page starts below; `nil` when no older version is retained.
        public var before: Int?
    }

    /// Up to `limit` of the object's retained versions before `before` (from its current one when
    /// `nil`), newest first, removals included.
    public func versions(_ scope: BucketScope, key: String, before: Int?, limit: Int) async throws -> Page {
        let object = try await existing(scope, key)
        let newest = min(before.map { $0 - 1 } ?? object.version, object.version)
        guard newest >= 1 else { return Page(object: object, versions: [], before: nil) }
        let oldest = max(1, newest - limit + 1)
        let records = try await store.versions(scope, key: key, from: oldest, through: newest)
        // A page that begins later than asked met the pruned part of the history.
        let more = records.first?.version == oldest && oldest > 1
        return Page(object: object, versions: records.reversed(), before: more ? oldest : nil)
    }

    /// One retained version, or why not.
    public func version(_ scope: BucketScope, key: String, _ version: Int) async throws -> VersionRecord {
        let object = try await existing(scope, key)
        guard (1...object.version).contains(version) else {
            throw HistoryError(.notFound, "\(key) has no version \(version): its latest is \(object.version)")
        }
        guard let record = try await store.versions(scope, key: key, from: version, through: version).first else {
            throw HistoryError(.gone, "version \(version) of \(key) is no longer retained (\(retention))")
        }
        return record
    }

    // MARK: Compare

    /// Versions `from` and `to` of an object compared (``ObjectComparison``); `to` is the current
    /// version when `nil`.
    public func compare(_ scope: BucketScope, key: String, from: Int, to: Int?) async throws -> (from: Int, to: Int, ObjectComparison) {
        var to = to
        if to == nil { to = try await existing(scope, key).version }
        guard let to else { throw HistoryError(.notFound, "there is no object \(key) in \(scope.bucket)") }
        let old = try await data(of: version(scope, key: key, from), key: key)
        let new = try await data(of: version(scope, key: key, to), key: key)
        return (from, to, ObjectComparison(from: old, to: new))
    }

    private func data(of record: VersionRecord, key: String) throws -> JSONObject {
        guard let data = record.data else {
            throw HistoryError(.notFound, "version \(record.version) of \(key) is its removal, which holds no data")
        }
        return data
    }

    // MARK: Restore an object

    /// What restoring an object did.
    public struct ObjectRestore: Sendable {
        /// The version the object is at now: the restore's, or the current one when it already
        /// held that data.
        public var version: Int
        public var restoredFrom: Int
        /// Whether a change was made (not when the object already held the version's data).
        public var changed: Bool
        public var data: JSONObject
    }

    /// Puts an object back to a retained version, as a new change by `author`.
    public func restore(
        _ scope: BucketScope, key: String, to version: Int, by author: ChangeAuthor, clientID: String, changeID: String
    ) async throws -> ObjectRestore {
        let object = try await existing(scope, key)
        if object.isDeleted {
            throw HistoryError(.gone, "object \(key) was removed at version \(object.version); removed objects never come back")
        }
        let data = try await data(of: self.version(scope, key: key, version), key: key)
        guard data != object.data else {
            return ObjectRestore(version: object.version, restoredFrom: version, changed: false, data: data)
        }
        let request = ChangeRequest(
            scope: scope,
            change: IncomingChange(
                key: key, changeID: changeID, clientID: clientID, operation: .modify(diff: nil, fullData: data),
                sourceVersion: object.version, editTime: services.clock.now()),
            author: author, restoredFrom: version)
        switch try await services.buckets.applyTogether([request]).first {
        case .committed(let event)?:
            return ObjectRestore(version: event.change.endVersion, restoredFrom: version, changed: true, data: data)
        case .rejected(let rejection)?:
            throw rejection
        case nil:
            throw HistoryError(.badRequest, "the restore of \(key) was not answered")
        }
    }

    // MARK: Restore a bucket

    /// What restoring a bucket to a moment does, or did.
    public struct BucketRestore: Sendable {
        /// The moment, in nanoseconds since the Unix epoch, and the bucket's feed position it
        /// fell at (see ``BucketMoment/sequence``).
        public var time: Int64
        public var sequence: Int64
        /// Objects put back to their data at the moment, and objects made since and removed.
        public var putBack: [String]
        public var removed: [String]
        /// Objects that existed at the moment and were removed since: they stay removed.
        public var stayRemoved: [String]
        /// Changes the merge rules refused when the restore committed (an object removed by a
        /// device between the plan and the commit): by key.
        public var refused: [(key: String, rejection: ChangeRejection)]
        public var dryRun: Bool
    }

    /// Puts every object of a bucket back as it was at `time` (nanoseconds since the Unix
    /// epoch), as one group of changes committed together by `author`; with `dryRun`, only says
    /// what that would change.
    public func restoreBucket(_ scope: BucketScope, at time: Int64, dryRun: Bool, by author: ChangeAuthor, clientID: String) async throws
        -> BucketRestore
    {
        let now = services.clock.now()
        guard time <= now else {
            throw HistoryError(.badRequest, "the moment \(time / 1_000_000) ms is in the future (the server's time is \(now / 1_000_000) ms)")
        }
        let moment: BucketMoment
        switch try await store.moment(scope, at: time) {
        case .found(let found): moment = found
        case .beyondHistory(let earliest):
            throw HistoryError(
                .gone,
                "the history of bucket \(scope.bucket) reaches back to \(earliest / 1_000_000) ms only (\(retention)): restore it to a moment since")
        }
        let plan = BucketRestorePlan(moment)
        guard plan.notRetained.isEmpty else {
            throw HistoryError(
                .gone,
                "the versions of \(plan.notRetained.count) objects at that moment are no longer retained (\(Self.sample(plan.notRetained))); "
                    + "restore the bucket to a later moment")
        }
        guard plan.steps.count <= services.limits.maximumRestoreChanges else {
            throw HistoryError(
                .tooLarge,
                "restoring bucket \(scope.bucket) to that moment would change \(plan.steps.count) objects; the limit is "
                    + "\(services.limits.maximumRestoreChanges) (--max-restore-changes)")
        }
        var restore = BucketRestore(
            time: time, sequence: moment.sequence, putBack: [], removed: [], stayRemoved: plan.stayRemoved, refused: [], dryRun: dryRun)
        guard !dryRun else {
            for step in plan.steps {
                if case .putBack = step { restore.putBack.append(step.key) } else { restore.removed.append(step.key) }
            }
            return restore
        }
        let group = Secrets.randomHex()
        let requests = plan.steps.enumerated().map { index, step in
            let (operation, version, from): (IncomingChange.Operation, Int, Int) =
                switch step {
                case .putBack(_, let data, let current, let then): (.modify(diff: nil, fullData: data), current, then)
                case .remove(_, let current): (.remove, current, 0)
                }
            return ChangeRequest(
                scope: scope,
                change: IncomingChange(
                    key: step.key, changeID: "restore-\(group)-\(index)", clientID: clientID, operation: operation, sourceVersion: version,
                    editTime: now),
                author: author, restoredFrom: from)
        }
        let outcomes = try await services.buckets.applyTogether(requests)
        for (step, outcome) in zip(plan.steps, outcomes) {
            switch (step, outcome) {
            case (.putBack, .committed): restore.putBack.append(step.key)
            case (.remove, .committed): restore.removed.append(step.key)
            case (_, .rejected(let rejection)): restore.refused.append((step.key, rejection))
            }
        }
        return restore
    }

    // MARK: Helpers

    private func existing(_ scope: BucketScope, _ key: String) async throws -> StoredObject {
        guard let object = try await store.object(scope, key: key) else {
            throw HistoryError(.notFound, "there is no object \(key) in \(scope.bucket)")
        }
        return object
    }

    /// What the history keeps, in words, for refusals.
    private var retention: String {
        let limits = services.limits
        let days = limits.historyRetentionSeconds / 86_400
        let shown = days == days.rounded() ? String(Int(days)) : String(days)
        return "history keeps \(shown) days of versions, and each object's latest \(limits.retainedVersions)"
    }

    /// Up to five keys, then how many more.
    static func sample(_ keys: [String]) -> String {
        keys.prefix(5).joined(separator: ", ") + (keys.count > 5 ? " and \(keys.count - 5) more" : "")
    }
}

extension LockstepServices {
    /// Versions, comparisons and restores.
    public var history: HistoryService { HistoryService(services: self) }
}
