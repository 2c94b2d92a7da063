import GRDB
public import LockstepCore

extension SQLiteStore {
    public func currentVersion(of scope: BucketScope) async throws -> ChangeVersion {
        if let version = try await pool.read({ db in try Self.bucketVersion(db, scope) }) {
            return version
        }
        return try await pool.write { db in try Self.ensureBucket(db, scope) }
    }

    public func object(_ scope: BucketScope, key: String) async throws -> StoredObject? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM objects WHERE app_id = ? AND owner = ? AND bucket = ? AND key = ?",
                arguments: [scope.appID, scope.ownerKey, scope.bucket, key]
            ).map(Self.object)
        }
    }

    public func objectData(_ scope: BucketScope, key: String, version: Int) async throws -> JSONObject? {
        try await pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT data FROM versions WHERE app_id = ? AND owner = ? AND bucket = ? AND key = ? AND version = ?",
                arguments: [scope.appID, scope.ownerKey, scope.bucket, key, version]
            ).map(StoredValueCoding.object)
        }
    }

    public func changes(_ scope: BucketScope, key: String, after version: Int) async throws -> [ChangeRecord] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM changes WHERE app_id = ? AND owner = ? AND bucket = ? AND key = ? AND end_version > ?
                    ORDER BY end_version
                    """,
                arguments: [scope.appID, scope.ownerKey, scope.bucket, key, version]
            ).map(Self.change)
        }
    }

    public func change(_ scope: BucketScope, changeID: String) async throws -> ChangeRecord? {
        try await pool.read { db in try Self.change(db, scope, changeID: changeID) }
    }

    public func commit(_ scope: BucketScope, _ write: ObjectWrite) async throws -> CommitOutcome {
        try await pool.write { db in
            if let seen = try Self.change(db, scope, changeID: write.change.changeID) {
                return .duplicate(seen)
            }
            let current = try Int.fetchOne(
                db, sql: "SELECT version FROM objects WHERE app_id = ? AND owner = ? AND bucket = ? AND key = ?",
                arguments: [scope.appID, scope.ownerKey, scope.bucket, write.object.key]) ?? 0
            guard current == write.expectedVersion else { return .versionConflict }

            let epoch = try Self.ensureBucket(db, scope).epoch
            let sequence = try Int64.fetchOne(
                db,
                sql: """
                    UPDATE buckets SET last_sequence = last_sequence + 1
                    WHERE app_id = ? AND owner = ? AND name = ? RETURNING last_sequence
                    """,
                arguments: [scope.appID, scope.ownerKey, scope.bucket])!
            let appSequence = try Int64.fetchOne(
                db, sql: "UPDATE apps SET last_sequence = last_sequence + 1 WHERE id = ? RETURNING last_sequence",
                arguments: [scope.appID]) ?? 0
            var change = write.change
            change.sequence = sequence
            var object = write.object
            object.sequence = sequence

            try db.execute(
                sql: """
                    INSERT INTO changes (app_id, owner, bucket, sequence, key, operation, source_version, end_version,
                                         diff, client_id, change_id, edit_time, app_sequence)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    scope.appID, scope.ownerKey, scope.bucket, sequence, change.key, change.operation.rawValue,
                    change.sourceVersion, change.endVersion, StoredValueCoding.text(change.diff), change.clientID,
                    change.changeID, change.editTime, appSequence,
                ])
            try db.execute(
                sql: """
                    INSERT INTO objects (app_id, owner, bucket, key, version, data, deleted, member_stamps, sequence)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (app_id, owner, bucket, key) DO UPDATE SET
                        version = excluded.version, data = excluded.data, deleted = excluded.deleted,
                        member_stamps = excluded.member_stamps, sequence = excluded.sequence
                    """,
                arguments: [
                    scope.appID, scope.ownerKey, scope.bucket, object.key, object.version, StoredValueCoding.text(object.data),
                    object.isDeleted, StoredValueCoding.text(object.memberStamps), sequence,
                ])
            if !object.isDeleted {
                try db.execute(
                    sql: "INSERT INTO versions (app_id, owner, bucket, key, version, data) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [scope.appID, scope.ownerKey, scope.bucket, object.key, object.version, StoredValueCoding.text(object.data)])
            }
            try db.execute(
                sql: "DELETE FROM versions WHERE app_id = ? AND owner = ? AND bucket = ? AND key = ? AND version <= ?",
                arguments: [scope.appID, scope.ownerKey, scope.bucket, object.key, object.version - write.retainedVersions])
            return .committed(change, ChangeVersion(epoch: epoch, sequence: sequence))
        }
    }

    public func feed(_ scope: BucketScope, after cursor: ChangeVersion, limit: Int) async throws -> [ChangeRecord]? {
        try await pool.read { db in
            guard let current = try Self.bucketVersion(db, scope), current.epoch == cursor.epoch,
                cursor.sequence <= current.sequence
            else { return nil }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM changes WHERE app_id = ? AND owner = ? AND bucket = ? AND sequence > ?
                    ORDER BY sequence LIMIT ?
                    """,
                arguments: [scope.appID, scope.ownerKey, scope.bucket, cursor.sequence, limit]
            ).map(Self.change)
        }
    }

    public func index(_ scope: BucketScope, _ query: IndexQuery) async throws -> IndexPage {
        let current = try await currentVersion(of: scope)
        return try await pool.read { db in
            var sql = "SELECT key, version, sequence\(query.includeData ? ", data" : "") FROM objects "
                + "WHERE app_id = ? AND owner = ? AND bucket = ? AND deleted = 0 AND sequence <= ?"
            var arguments: StatementArguments = [scope.appID, scope.ownerKey, scope.bucket, query.snapshot ?? current.sequence]
            if let after = query.after {
                sql += " AND sequence < ?"
                arguments += [after.sequence]
            }
            if let changedAfter = query.changedAfter {
                sql += " AND sequence > ?"
                arguments += [changedAfter]
            }
            sql += " ORDER BY sequence DESC LIMIT ?"
            arguments += [query.limit + 1]
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            let entries = try rows.prefix(query.limit).map { row in
                IndexPage.Entry(
                    key: row["key"], version: row["version"],
                    data: query.includeData ? try StoredValueCoding.object(row["data"]) : nil)
            }
            let next = rows.count > query.limit
                ? IndexPosition(sequence: rows[query.limit - 1]["sequence"], key: rows[query.limit - 1]["key"]) : nil
            return IndexPage(current: current, entries: entries, next: next)
        }
    }

    public func appFeed(appID: String, bucket: String, after cursor: Int64, limit: Int) async throws -> [AppFeedEntry] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM changes WHERE app_id = ? AND bucket = ? AND app_sequence > ?
                    ORDER BY app_sequence LIMIT ?
                    """,
                arguments: [appID, bucket, cursor, limit]
            ).map { row in AppFeedEntry(ownerKey: row["owner"], appSequence: row["app_sequence"], change: try Self.change(row)) }
        }
    }

    // MARK: Rows

    private static func bucketVersion(_ db: Database, _ scope: BucketScope) throws -> ChangeVersion? {
        try Row.fetchOne(
            db, sql: "SELECT epoch, last_sequence FROM buckets WHERE app_id = ? AND owner = ? AND name = ?",
            arguments: [scope.appID, scope.ownerKey, scope.bucket]
        ).map { row in ChangeVersion(epoch: UInt32(truncatingIfNeeded: row["epoch"] as Int64), sequence: row["last_sequence"]) }
    }

    @discardableResult
    private static func ensureBucket(_ db: Database, _ scope: BucketScope) throws -> ChangeVersion {
        try db.execute(
            sql: "INSERT OR IGNORE INTO buckets (app_id, owner, name, epoch, last_sequence) VALUES (?, ?, ?, ?, 0)",
            arguments: [scope.appID, scope.ownerKey, scope.bucket, Int64(UInt32.random(in: 1...UInt32.max))])
        return try bucketVersion(db, scope)!
    }

    private static func change(_ db: Database, _ scope: BucketScope, changeID: String) throws -> ChangeRecord? {
        try Row.fetchOne(
            db, sql: "SELECT * FROM changes WHERE app_id = ? AND owner = ? AND bucket = ? AND change_id = ?",
            arguments: [scope.appID, scope.ownerKey, scope.bucket, changeID]
        ).map(change)
    }

    private static func change(_ row: Row) throws -> ChangeRecord {
        ChangeRecord(
            sequence: row["sequence"], key: row["key"],
            operation: ChangeRecord.Operation(rawValue: row["operation"]) ?? .modify,
            sourceVersion: row["source_version"], endVersion: row["end_version"],
            diff: try StoredValueCoding.diff(row["diff"]), clientID: row["client_id"], changeID: row["change_id"],
            editTime: row["edit_time"])
    }

    private static func object(_ row: Row) throws -> StoredObject {
        StoredObject(
            key: row["key"], version: row["version"], data: try StoredValueCoding.object(row["data"]),
            isDeleted: row["deleted"], memberStamps: try StoredValueCoding.stamps(row["member_stamps"]),
            sequence: row["sequence"])
    }
}
