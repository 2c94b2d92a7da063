public import LockstepCore
public import LockstepServer
import PostgresNIO

extension PostgresStore {
    public func currentVersion(of scope: BucketScope) async throws -> ChangeVersion {
        if let bucket = try await bucketRow(scope) { return bucket.version }
        try await execute("""
            INSERT INTO buckets (app_id, owner, name, epoch, last_sequence)
            VALUES (\(scope.appID), \(scope.ownerKey), \(scope.bucket), \(Self.newEpoch()), 0)
            ON CONFLICT (app_id, owner, name) DO NOTHING
            """)
        // Another node may have created it first, with its own epoch: read what won. Buckets
        // are never deleted, so the row is there.
        return try await bucketRow(scope)!.version
    }

    public func object(_ scope: BucketScope, key: String) async throws -> StoredObject? {
        try await rows("""
            SELECT \(unescaped: Columns.object) FROM objects
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(key)
            """).first.map(Columns.object)
    }

    public func objectData(_ scope: BucketScope, key: String, version: Int) async throws -> JSONObject? {
        guard let current = try await object(scope, key: key), (1...current.version).contains(version) else { return nil }
        if version == current.version { return current.isDeleted ? nil : current.data }
        return try await timeline(ObjectAddress(scope: scope, key: key), from: version, through: version)?.data(at: version)
    }

    public func change(_ scope: BucketScope, changeID: String) async throws -> ChangeRecord? {
        try await rows(Self.changeQuery(scope, changeID: changeID)).first.map(Columns.change)
    }

    public func feed(_ scope: BucketScope, after cursor: ChangeVersion, limit: Int) async throws -> [ChangeRecord]? {
        // A cursor before changes the pruner deleted could miss them: the client must index again.
        guard let bucket = try await bucketRow(scope), bucket.version.epoch == cursor.epoch,
            cursor.sequence <= bucket.version.sequence, cursor.sequence >= bucket.prunedThrough
        else { return nil }
        return try await rows("""
            SELECT \(unescaped: Columns.change) FROM changes
            WHERE bucket_id = \(bucketIDOf: scope) AND sequence > \(cursor.sequence)
            ORDER BY sequence LIMIT \(limit)
            """).map(Columns.change)
    }

    public func index(_ scope: BucketScope, _ query: IndexQuery) async throws -> IndexPage {
        let current = try await currentVersion(of: scope)
        let snapshot = query.snapshot ?? current.sequence
        // Unchanged since the snapshot: an object's latest change is its place.
        let unchanged = try await rows("""
            SELECT key, version, sequence, CASE WHEN \(query.includeData) THEN data END FROM objects
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND NOT deleted
                AND sequence <= \(snapshot) AND sequence < \(query.before ?? .max)
                AND (\(query.changedAfter)::BIGINT IS NULL OR sequence > \(query.changedAfter))
            ORDER BY sequence DESC LIMIT \(query.limit + 1)
            """).map { row in
            let (key, version, sequence, data) = try row.decode((String, Int, Int64, String?).self)
            return IndexAsOf.Candidate(place: sequence, entry: IndexPage.Entry(key: key, version: version, data: try data.map(StoredValueCoding.object)))
        }
        // Changed since: placed where the snapshot had them.
        var changed: [IndexAsOf.Candidate] = []
        for row in try await rows("""
            SELECT o.key, o.version, o.deleted, o.history_from, c.sequence, c.end_version, c.operation FROM objects o
            LEFT JOIN LATERAL (
                SELECT sequence, end_version, operation FROM changes
                WHERE bucket_id = \(bucketIDOf: scope) AND key = o.key AND sequence <= \(snapshot)
                ORDER BY sequence DESC LIMIT 1
            ) c ON true
            WHERE o.app_id = \(scope.appID) AND o.owner = \(scope.ownerKey) AND o.bucket = \(scope.bucket) AND o.sequence > \(snapshot)
            """)
        {
            let (key, version, deleted, historyFrom, sequence, endVersion, operation) = try row.decode(
                (String, Int, Bool, Int, Int64?, Int?, String?).self)
            let lastChange = sequence.flatMap { sequence in
                endVersion.map { (sequence: sequence, version: $0, isRemoval: operation == ChangeRecord.Operation.remove.rawValue) }
            }
            if let candidate = IndexAsOf.changedCandidate(
                key: key, lastChange: lastChange, historyFrom: historyFrom, current: (version, deleted), query: query)
            {
                changed.append(candidate)
            }
        }
        let page = IndexAsOf.page(unchanged: unchanged, changed: changed, limit: query.limit)
        var entries: [IndexPage.Entry] = []
        for candidate in page.entries {
            let entry = candidate.entry
            guard query.includeData && entry.data == nil else {
                entries.append(entry)
                continue
            }
            let rebuilt = try await timeline(ObjectAddress(scope: scope, key: entry.key), from: entry.version, through: entry.version)?
                .data(at: entry.version)
            if let listed = IndexAsOf.withData(entry, rebuilt: rebuilt, latest: try await object(scope, key: entry.key)) { entries.append(listed) }
        }
        return IndexPage(current: current, entries: entries, nextBefore: page.nextBefore)
    }

    public func appFeed(appID: String, bucket: String, after cursor: Int64, limit: Int) async throws -> [AppFeedEntry] {
        try await rows("""
            SELECT \(unescaped: Columns.change), owner, app_sequence FROM changes
            WHERE app_id = \(appID) AND bucket = \(bucket) AND app_sequence > \(cursor)
            ORDER BY app_sequence LIMIT \(limit)
            """).map(Columns.appFeedEntry)
    }

    public func newestAppFeed(appID: String, bucket: String, limit: Int) async throws -> [AppFeedEntry] {
        try await rows("""
            SELECT \(unescaped: Columns.change), owner, app_sequence FROM changes
            WHERE app_id = \(appID) AND bucket = \(bucket)
            ORDER BY app_sequence DESC LIMIT \(limit)
            """).map(Columns.appFeedEntry).reversed()
    }

    // MARK: Helpers

    /// A bucket's change version, and the last feed position whose changes the pruner may have deleted.
    struct BucketRow {
        var version: ChangeVersion
        var prunedThrough: Int64
    }

    func bucketRow(_ scope: BucketScope) async throws -> BucketRow? {
        try await rows("""
            SELECT epoch, last_sequence, pruned_through FROM buckets
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND name = \(scope.bucket)
            """).first.map { row in
            let (epoch, sequence, prunedThrough) = try row.decode((Int64, Int64, Int64).self)
            return BucketRow(version: ChangeVersion(epoch: UInt32(truncatingIfNeeded: epoch), sequence: sequence), prunedThrough: prunedThrough)
        }
    }

    /// A new bucket's epoch: random, so that a cursor from a dropped and re-created bucket is refused.
    static func newEpoch() -> Int64 {
        Int64(UInt32.random(in: 1...UInt32.max))
    }

    static func changeQuery(_ scope: BucketScope, changeID: String) -> PostgresQuery {
        """
        SELECT \(unescaped: Columns.change) FROM changes
        WHERE bucket_id = \(bucketIDOf: scope) AND change_id = \(changeID)
        """
    }

    /// Runs a query inside a transaction and collects its rows.
    @discardableResult
    static func rows(_ connection: PostgresConnection, _ logger: Logger, _ query: PostgresQuery) async throws -> [PostgresRow] {
        try await connection.query(query, logger: logger).collect()
    }
}
