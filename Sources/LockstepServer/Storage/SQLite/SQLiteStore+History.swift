import GRDB
import LockstepCore

extension SQLiteStore {
    /// An object's history from `version` through `current`: the latest snapshot at or before
    /// `version` (or the empty object before version 1) and every change since; `nil` when a
    /// part of it was pruned.
    static func timeline(_ db: Database, _ address: ObjectAddress, from version: Int, through current: StoredObject) throws
        -> ObjectTimeline?
    {
        try timeline(db, address, from: version, through: current.version)
    }

    /// The same, up to version `last` only: what reading version `last` needs.
    static func timeline(_ db: Database, _ address: ObjectAddress, from version: Int, through last: Int) throws -> ObjectTimeline? {
        let scope = address.scope
        let snapshot = try Row.fetchOne(
            db.cachedStatement(
            sql: """
                SELECT version, data FROM snapshots WHERE app_id = ? AND owner = ? AND bucket = ? AND key = ? AND version <= ?
                ORDER BY version DESC LIMIT 1
                """),
            arguments: [scope.appID, scope.ownerKey, scope.bucket, address.key, version])
        let baseVersion: Int = snapshot?["version"] ?? 0
        let baseData = try snapshot.map { row in try StoredValueCoding.object(row["data"]) } ?? [:]
        let changes = try DirectStatement(
            db.cachedStatement(
            sql: """
                SELECT \(changeColumns) FROM changes
                WHERE app_id = ? AND owner = ? AND bucket = ? AND key = ? AND end_version > ? AND end_version <= ?
                ORDER BY end_version
                """)
        ).rows(in: scope, [SQLiteArgument(address.key), SQLiteArgument(baseVersion), SQLiteArgument(last)], change)
        return ObjectTimeline(baseVersion: baseVersion, baseData: baseData, changes: changes)
    }

    /// Deletes, for up to `limit` objects after `cursor`, the history `policy` no longer keeps:
    /// the changes and snapshots before the latest snapshot at or before the oldest version
    /// kept. Each object is pruned in its own short write, so writers never wait long.
    public func pruneHistory(after cursor: PruneCursor?, limit: Int, policy: HistoryPolicy) async throws -> HistoryPruning {
        let candidates = try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                sql: """
                    SELECT app_id, owner, bucket, key FROM objects
                    WHERE version - history_from > ? AND (app_id, owner, bucket, key) > (?, ?, ?, ?)
                    ORDER BY app_id, owner, bucket, key LIMIT ?
                    """),
                arguments: [
                    policy.keepLatest, cursor?.appID ?? "", cursor?.owner ?? "", cursor?.bucket ?? "", cursor?.key ?? "", limit,
                ]
            ).map { row in PruneCursor(appID: row["app_id"], owner: row["owner"], bucket: row["bucket"], key: row["key"]) }
        }
        var pruned = 0
        for candidate in candidates {
            let address = ObjectAddress(
                scope: BucketScope(appID: candidate.appID, ownerKey: candidate.owner, bucket: candidate.bucket), key: candidate.key)
            if try await pool.write({ db in try Self.prune(db, address, policy: policy) }) { pruned += 1 }
        }
        let next = candidates.count == limit ? candidates.last : nil
        return HistoryPruning(examined: candidates.count, pruned: pruned, next: next)
    }

    /// Prunes one object's history; whether anything went.
    private static func prune(_ db: Database, _ address: ObjectAddress, policy: HistoryPolicy) throws -> Bool {
        let scope = address.scope
        let object: [(any DatabaseValueConvertible)?] = [scope.appID, scope.ownerKey, scope.bucket, address.key]
        let match = "app_id = ? AND owner = ? AND bucket = ? AND key = ?"
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT version, history_from FROM objects WHERE \(match)"), arguments: StatementArguments(object))
        else { return false }
        let latest: Int = row["version"]
        let historyFrom: Int = row["history_from"]
        let oldestYoung = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT MIN(end_version) FROM changes WHERE \(match) AND committed_at >= ?"),
            arguments: StatementArguments(object + [policy.keepSince]))
        let oldestKept = policy.oldestKept(latest: latest, oldestYoung: oldestYoung)
        guard let cut = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT MAX(version) FROM snapshots WHERE \(match) AND version <= ?"),
            arguments: StatementArguments(object + [oldestKept])), cut > historyFrom
        else { return false }

        // The change that made the snapshot's version stays: the feed keeps every change of a
        // version kept, so a device that holds the version before it still catches up.
        let lastPrunedSequence = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT MAX(sequence) FROM changes WHERE \(match) AND end_version < ?"), arguments: StatementArguments(object + [cut]))
        try db.execute(sql: "DELETE FROM changes WHERE \(match) AND end_version < ?", arguments: StatementArguments(object + [cut]))
        try db.execute(sql: "DELETE FROM snapshots WHERE \(match) AND version < ?", arguments: StatementArguments(object + [cut]))
        try db.execute(sql: "UPDATE objects SET history_from = ? WHERE \(match)", arguments: StatementArguments([cut] + object))
        if let lastPrunedSequence {
            try db.execute(
                sql: "UPDATE buckets SET pruned_through = MAX(pruned_through, ?) WHERE app_id = ? AND owner = ? AND name = ?",
                arguments: [lastPrunedSequence, scope.appID, scope.ownerKey, scope.bucket])
        }
        return true
    }
}
