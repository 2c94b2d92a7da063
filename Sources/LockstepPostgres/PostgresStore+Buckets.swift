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
        return try await timeline(ObjectAddress(scope: scope, key: key), from: version, through: current)?.data(at: version)
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
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND sequence > \(cursor.sequence)
            ORDER BY sequence LIMIT \(limit)
            """).map(Columns.change)
    }

    public func index(_ scope: BucketScope, _ query: IndexQuery) async throws -> IndexPage {
        let current = try await currentVersion(of: scope)
        let snapshot = query.snapshot ?? current.sequence
        let found = try await rows("""
            SELECT key, version, sequence, deleted, history_from, CASE WHEN \(query.includeData) THEN data END FROM objects
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key > \(query.afterKey ?? "")
                AND (NOT deleted OR sequence > \(snapshot))
                AND (\(query.changedAfter)::BIGINT IS NULL OR sequence > \(query.changedAfter))
            ORDER BY key LIMIT \(query.limit + 1)
            """).map { row in try row.decode((String, Int, Int64, Bool, Int, String?).self) }
        var entries: [IndexPage.Entry] = []
        for (key, version, sequence, deleted, historyFrom, data) in found.prefix(query.limit) {
            guard sequence > snapshot else {
                entries.append(IndexPage.Entry(key: key, version: version, data: try data.map(StoredValueCoding.object)))
                continue
            }
            let lastChange = try await rows("""
                SELECT end_version, operation FROM changes
                WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(key)
                    AND sequence <= \(snapshot)
                ORDER BY sequence DESC LIMIT 1
                """).first.map { row in
                let (version, operation) = try row.decode((Int, String).self)
                return (version: version, isRemoval: operation == ChangeRecord.Operation.remove.rawValue)
            }
            guard let listed = IndexAsOf.version(lastChange: lastChange, historyFrom: historyFrom, current: (version, deleted)) else {
                continue
            }
            guard query.includeData else {
                entries.append(IndexPage.Entry(key: key, version: listed, data: nil))
                continue
            }
            guard let object = try await object(scope, key: key) else { continue }
            if let data = try await timeline(ObjectAddress(scope: scope, key: key), from: listed, through: object)?.data(at: listed) {
                entries.append(IndexPage.Entry(key: key, version: listed, data: data))
            } else if !object.isDeleted {
                // That version could not be rebuilt: the latest stands in.
                entries.append(IndexPage.Entry(key: key, version: object.version, data: object.data))
            }
        }
        return IndexPage(current: current, entries: entries, nextAfterKey: found.count > query.limit ? found[query.limit - 1].0 : nil)
    }

    public func appFeed(appID: String, bucket: String, after cursor: Int64, limit: Int) async throws -> [AppFeedEntry] {
        try await rows("""
            SELECT \(unescaped: Columns.change), owner, app_sequence FROM changes
            WHERE app_id = \(appID) AND bucket = \(bucket) AND app_sequence > \(cursor)
            ORDER BY app_sequence LIMIT \(limit)
            """).map { row in
            let cells = row.makeRandomAccess()
            return AppFeedEntry(
                ownerKey: try cells[Columns.changeCount].decode(String.self), appSequence: try cells[Columns.changeCount + 1].decode(Int64.self),
                change: try Columns.change(row))
        }
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
        WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND change_id = \(changeID)
        """
    }

    /// Runs a query inside a transaction and collects its rows.
    @discardableResult
    static func rows(_ connection: PostgresConnection, _ logger: Logger, _ query: PostgresQuery) async throws -> [PostgresRow] {
        try await connection.query(query, logger: logger).collect()
    }
}
