import LockstepCore
public import LockstepServer
import Logging
import PostgresNIO

extension PostgresStore {
    /// An object's history from `version` through `current` (see ``SQLiteStore``'s, which
    /// it mirrors); `nil` when a part of it was pruned.
    func timeline(_ address: ObjectAddress, from version: Int, through last: Int) async throws -> ObjectTimeline? {
        try await client.withConnection { connection in
            try await Self.timeline(address, from: version, through: last, on: connection, logger: logger)
        }
    }

    /// An object's history from `version` (or the latest snapshot before it) through version `last`.
    static func timeline(
        _ address: ObjectAddress, from version: Int, through last: Int, on connection: PostgresConnection, logger: Logger
    ) async throws -> ObjectTimeline? {
        let scope = address.scope
        let snapshot = try await rows(connection, logger, """
            SELECT version, data FROM snapshots
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(address.key)
                AND version <= \(version)
            ORDER BY version DESC LIMIT 1
            """).first.map { row in try row.decode((Int, String).self) }
        let baseVersion = snapshot?.0 ?? 0
        let changes = try await rows(connection, logger, """
            SELECT \(unescaped: Columns.change) FROM changes
            WHERE bucket_id = \(bucketIDOf: scope) AND key = \(address.key)
                AND end_version > \(baseVersion) AND end_version <= \(last)
            ORDER BY end_version
            """).map(Columns.change)
        return ObjectTimeline(
            baseVersion: baseVersion, baseData: try snapshot.map { try StoredValueCoding.object($0.1) } ?? [:], changes: changes)
    }

    /// Deletes, for up to `limit` objects after `cursor`, the history `policy` no longer keeps
    /// (see ``SQLiteStore``'s, which it mirrors). Each object is pruned in its own short
    /// transaction, under its bucket's row lock, so it never races a commit to the bucket.
    public func pruneHistory(after cursor: PruneCursor?, limit: Int, policy: HistoryPolicy) async throws -> HistoryPruning {
        let candidates = try await rows("""
            SELECT app_id, owner, bucket, key FROM objects
            WHERE version - history_from > \(policy.keepLatest)
                AND (app_id, owner, bucket, key) > (\(cursor?.appID ?? ""), \(cursor?.owner ?? ""), \(cursor?.bucket ?? ""), \(cursor?.key ?? ""))
            ORDER BY app_id, owner, bucket, key LIMIT \(limit)
            """).map { row in try row.decode((String, String, String, String).self) }
        var pruned = 0
        for (appID, owner, bucket, key) in candidates {
            let address = ObjectAddress(scope: BucketScope(appID: appID, ownerKey: owner, bucket: bucket), key: key)
            if try await transaction({ connection in .commit(try await prune(address, policy: policy, connection)) }) { pruned += 1 }
        }
        let next = candidates.count == limit ? candidates.last.map { PruneCursor(appID: $0.0, owner: $0.1, bucket: $0.2, key: $0.3) } : nil
        return HistoryPruning(examined: candidates.count, pruned: pruned, next: next)
    }

    private func prune(_ address: ObjectAddress, policy: HistoryPolicy, _ connection: PostgresConnection) async throws -> Bool {
        let scope = address.scope
        let key = address.key
        try await Self.rows(connection, logger, """
            SELECT 1 FROM buckets WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND name = \(scope.bucket) FOR UPDATE
            """)
        guard let object = try await Self.rows(connection, logger, """
            SELECT version, history_from FROM objects
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(key)
            """).first
        else { return false }
        let (latest, historyFrom) = try object.decode((Int, Int).self)
        let oldestYoung = try await Self.rows(connection, logger, """
            SELECT MIN(end_version) FROM changes
            WHERE bucket_id = \(bucketIDOf: scope) AND key = \(key)
                AND committed_at >= \(policy.keepSince)
            """).first?.decode(Int?.self) ?? nil
        let oldestKept = policy.oldestKept(latest: latest, oldestYoung: oldestYoung)
        guard let cut = try await Self.rows(connection, logger, """
            SELECT MAX(version) FROM snapshots
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(key)
                AND version <= \(oldestKept)
            """).first?.decode(Int?.self) ?? nil, cut > historyFrom
        else { return false }
        // The change that made the snapshot's version stays (see SQLiteStore's prune).
        try await Self.rows(connection, logger, """
            WITH gone AS (
                DELETE FROM changes
                WHERE bucket_id = \(bucketIDOf: scope) AND key = \(key)
                    AND end_version < \(cut)
                RETURNING sequence
            )
            UPDATE buckets SET pruned_through = GREATEST(pruned_through, (SELECT COALESCE(MAX(sequence), 0) FROM gone))
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND name = \(scope.bucket)
            """)
        try await Self.rows(connection, logger, """
            DELETE FROM snapshots
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(key) AND version < \(cut)
            """)
        try await Self.rows(connection, logger, """
            UPDATE objects SET history_from = \(cut)
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(key)
            """)
        return true
    }
}

extension PostgresStore {
    /// Bytes on disk of some of the store's tables, with their indexes and TOAST data (benchmarks).
    public func tableBytes(_ tables: [String]) async throws -> Int64 {
        var total: Int64 = 0
        for table in tables {
            let qualified = configuration.schema.map { "\"\($0)\".\(table)" } ?? table
            total += try await rows("SELECT pg_total_relation_size(\(qualified)::regclass)").first?.decode(Int64.self) ?? 0
        }
        return total
    }
}
