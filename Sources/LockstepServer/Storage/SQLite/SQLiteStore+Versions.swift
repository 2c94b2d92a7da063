import GRDB
import LockstepCore

extension SQLiteStore {
    public func versions(_ scope: BucketScope, key: String, from oldest: Int, through newest: Int) async throws -> [VersionRecord] {
        try await pool.read { db in
            let address = ObjectAddress(scope: scope, key: key)
            guard let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT version, history_from FROM objects WHERE app_id = ? AND owner = ? AND bucket = ? AND key = ?"),
                arguments: [scope.appID, scope.ownerKey, scope.bucket, key])
            else { return [] }
            let first = max(oldest, row["history_from"] as Int, 1)
            let last = min(newest, row["version"] as Int)
            guard first <= last, let timeline = try Self.timeline(db, address, from: first, through: last) else { return [] }
            let authorships = try DirectStatement(db.cachedStatement(sql: Self.authorshipSQL)).rows(
                in: scope, [SQLiteArgument(key), SQLiteArgument(first), SQLiteArgument(last)], Self.authorship)
            return try VersionAuthorship.records(authorships, from: timeline)
        }
    }

    public func moment(_ scope: BucketScope, at time: Int64) async throws -> BucketMoment.Lookup {
        try await pool.read { db in
            let bucket: [any DatabaseValueConvertible] = [scope.appID, scope.ownerKey, scope.bucket]
            let match = "app_id = ? AND owner = ? AND bucket = ?"
            // The feed read back from its end to the moment: no index by commit time, which every
            // change would pay for.
            let sequence = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT sequence FROM changes WHERE \(match) AND committed_at <= ? ORDER BY sequence DESC LIMIT 1"),
                arguments: StatementArguments(bucket + [time])) ?? 0
            let prunedThrough = try Self.prunedThrough(db, scope)
            guard sequence >= prunedThrough else {
                // Every change after the pruned ones is retained: the first of them is reached.
                let earliest = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT committed_at FROM changes WHERE \(match) AND sequence > ? ORDER BY sequence LIMIT 1"),
                    arguments: StatementArguments(bucket + [prunedThrough]))
                return .beyondHistory(earliest: earliest ?? time)
            }
            var changed: [BucketMoment.Object] = []
            for row in try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT key, version, deleted, data, history_from FROM objects WHERE \(match) AND sequence > ? ORDER BY key
                    """),
                arguments: StatementArguments(bucket + [sequence]))
            {
                let key: String = row["key"]
                let lastChange = try Row.fetchOne(
                    db.cachedStatement(sql: """
                        SELECT end_version, operation FROM changes WHERE \(match) AND key = ? AND sequence <= ?
                        ORDER BY end_version DESC LIMIT 1
                        """),
                    arguments: StatementArguments(bucket + [key, sequence])
                ).map { row in (version: row["end_version"] as Int, isRemoval: row["operation"] == ChangeRecord.Operation.remove.rawValue) }
                let then = try BucketMoment.then(lastChange: lastChange, historyPruned: (row["history_from"] as Int) > 0) {
                    guard let version = lastChange?.version else { return nil }
                    return try Self.timeline(db, ObjectAddress(scope: scope, key: key), from: version, through: version)?.data(at: version)
                }
                changed.append(BucketMoment.Object(
                    key: key, version: row["version"], isDeleted: row["deleted"], data: try StoredValueCoding.object(row["data"]), then: then))
            }
            return .found(BucketMoment(sequence: sequence, changed: changed))
        }
    }

    /// Who made each version of an object in a range: its changes' rows, with a user author's name.
    private static let authorshipSQL = """
        SELECT c.end_version, c.author, u.username, c.client_id, c.change_id, c.committed_at, c.edit_time, c.restored_from
        FROM changes AS c LEFT JOIN users AS u ON u.app_id = c.app_id AND u.id = c.author
        WHERE c.app_id = ? AND c.owner = ? AND c.bucket = ? AND c.key = ? AND c.end_version BETWEEN ? AND ?
        ORDER BY c.end_version
        """

    private static func authorship(_ columns: SQLiteColumns) -> VersionAuthorship {
        VersionAuthorship(
            version: columns.int(0), author: columns.optionalText(1), authorName: columns.optionalText(2), clientID: columns.text(3),
            changeID: columns.text(4), committedAt: columns.integer(5), editTime: columns.optionalInteger(6), restoredFrom: columns.optionalInt(7))
    }
}
