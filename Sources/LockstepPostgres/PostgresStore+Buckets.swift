public import LockstepCore
public import LockstepServer
import PostgresNIO

extension PostgresStore {
    public func currentVersion(of scope: BucketScope) async throws -> ChangeVersion {
        if let version = try await bucketVersion(scope) { return version }
        try await execute("""
            INSERT INTO buckets (app_id, owner, name, epoch, last_sequence)
            VALUES (\(scope.appID), \(scope.ownerKey), \(scope.bucket), \(Self.newEpoch()), 0)
            ON CONFLICT (app_id, owner, name) DO NOTHING
            """)
        // Another node may have created it first, with its own epoch: read what won. Buckets
        // are never deleted, so the row is there.
        return try await bucketVersion(scope)!
    }

    public func object(_ scope: BucketScope, key: String) async throws -> StoredObject? {
        try await rows("""
            SELECT \(unescaped: Columns.object) FROM objects
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(key)
            """).first.map(Columns.object)
    }

    public func objectData(_ scope: BucketScope, key: String, version: Int) async throws -> JSONObject? {
        try await rows("""
            SELECT data FROM versions
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(key)
                AND version = \(version)
            """).first.map { row in try StoredValueCoding.object(try row.decode(String.self)) }
    }

    public func changes(_ scope: BucketScope, key: String, after version: Int) async throws -> [ChangeRecord] {
        try await rows("""
            SELECT \(unescaped: Columns.change) FROM changes
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(key)
                AND end_version > \(version)
            ORDER BY end_version
            """).map(Columns.change)
    }

    public func change(_ scope: BucketScope, changeID: String) async throws -> ChangeRecord? {
        try await rows(Self.changeQuery(scope, changeID: changeID)).first.map(Columns.change)
    }

    /// Commits one change, with the same checks and effects as ``SQLiteStore``'s commit.
    ///
    /// Its first statement takes the bucket's row lock (creating the bucket if needed) and
    /// draws the next sequence number; the lock is held until the transaction ends. So commits
    /// to one bucket run one at a time across every node: sequence numbers follow commit order
    /// (a feed reader never sees 8 before 7), and the duplicate and version checks that follow
    /// see every change committed before. A rolled-back commit gives its number back. The app's
    /// row lock, taken later, orders the app-wide sequence of `/all` the same way; locks are
    /// always taken bucket first, then app, so two commits never deadlock.
    public func commit(_ scope: BucketScope, _ write: ObjectWrite) async throws -> CommitOutcome {
        let object = write.object
        return try await transaction { connection in
            let (epoch, sequence) = try await Self.rows(connection, logger, """
                INSERT INTO buckets (app_id, owner, name, epoch, last_sequence)
                VALUES (\(scope.appID), \(scope.ownerKey), \(scope.bucket), \(Self.newEpoch()), 1)
                ON CONFLICT (app_id, owner, name) DO UPDATE SET last_sequence = buckets.last_sequence + 1
                RETURNING epoch, last_sequence
                """)[0].decode((Int64, Int64).self)

            if let seen = try await Self.rows(connection, logger, Self.changeQuery(scope, changeID: write.change.changeID)).first {
                return .rollback(.duplicate(try Columns.change(seen)))
            }
            let current = try await Self.rows(connection, logger, """
                SELECT version FROM objects
                WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(object.key)
                """).first?.decode(Int.self) ?? 0
            guard current == write.expectedVersion else { return .rollback(.versionConflict) }

            var change = write.change
            change.sequence = sequence
            let appSequence = try await Self.rows(connection, logger, """
                WITH app AS (UPDATE apps SET last_sequence = last_sequence + 1 WHERE id = \(scope.appID) RETURNING last_sequence)
                INSERT INTO changes (app_id, owner, bucket, sequence, key, operation, source_version, end_version,
                                     diff, client_id, change_id, edit_time, app_sequence, origin)
                SELECT \(scope.appID), \(scope.ownerKey), \(scope.bucket), \(sequence), \(change.key), \(change.operation.rawValue),
                    \(change.sourceVersion), \(change.endVersion), \(StoredValueCoding.text(change.diff)), \(change.clientID),
                    \(change.changeID), \(change.editTime), COALESCE((SELECT last_sequence FROM app), 0), \(nodeID)
                RETURNING app_sequence
                """)[0].decode(Int64.self)
            try await Self.rows(connection, logger, """
                INSERT INTO objects (app_id, owner, bucket, key, version, data, deleted, member_stamps, sequence)
                VALUES (\(scope.appID), \(scope.ownerKey), \(scope.bucket), \(object.key), \(object.version),
                    \(StoredValueCoding.text(object.data)), \(object.isDeleted), \(StoredValueCoding.text(object.memberStamps)),
                    \(sequence))
                ON CONFLICT (app_id, owner, bucket, key) DO UPDATE SET
                    version = excluded.version, data = excluded.data, deleted = excluded.deleted,
                    member_stamps = excluded.member_stamps, sequence = excluded.sequence
                """)
            if !object.isDeleted {
                try await Self.rows(connection, logger, """
                    INSERT INTO versions (app_id, owner, bucket, key, version, data)
                    VALUES (\(scope.appID), \(scope.ownerKey), \(scope.bucket), \(object.key), \(object.version),
                        \(StoredValueCoding.text(object.data)))
                    """)
            }
            try await Self.rows(connection, logger, """
                DELETE FROM versions
                WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(object.key)
                    AND version <= \(object.version - write.retainedVersions)
                """)
            // Inside the transaction: PostgreSQL delivers it only if the change commits, and
            // delivers notifications in commit order, which the relay's catch-up relies on.
            let notification = ChangeNotification(
                node: nodeID, appID: scope.appID, appSequence: appSequence, scope: scope, sequence: sequence)
            try await Self.rows(connection, logger, "SELECT pg_notify(\(configuration.notificationChannel), \(notification.payload))")
            return .commit(.committed(change, ChangeVersion(epoch: UInt32(truncatingIfNeeded: epoch), sequence: sequence)))
        }
    }

    public func feed(_ scope: BucketScope, after cursor: ChangeVersion, limit: Int) async throws -> [ChangeRecord]? {
        guard let current = try await bucketVersion(scope), current.epoch == cursor.epoch, cursor.sequence <= current.sequence
        else { return nil }
        return try await rows("""
            SELECT \(unescaped: Columns.change) FROM changes
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND sequence > \(cursor.sequence)
            ORDER BY sequence LIMIT \(limit)
            """).map(Columns.change)
    }

    public func index(_ scope: BucketScope, _ query: IndexQuery) async throws -> IndexPage {
        let current = try await currentVersion(of: scope)
        let found = try await rows("""
            SELECT key, version, sequence, CASE WHEN \(query.includeData) THEN data END FROM objects
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND NOT deleted
                AND sequence <= \(query.snapshot ?? current.sequence)
                AND (\(query.after?.sequence)::BIGINT IS NULL OR sequence < \(query.after?.sequence))
                AND (\(query.changedAfter)::BIGINT IS NULL OR sequence > \(query.changedAfter))
            ORDER BY sequence DESC LIMIT \(query.limit + 1)
            """).map { row in try row.decode((String, Int, Int64, String?).self) }
        let entries = try found.prefix(query.limit).map { key, version, _, data in
            IndexPage.Entry(key: key, version: version, data: try data.map(StoredValueCoding.object))
        }
        let next = found.count > query.limit ? IndexPosition(sequence: found[query.limit - 1].2, key: found[query.limit - 1].0) : nil
        return IndexPage(current: current, entries: entries, next: next)
    }

    public func appFeed(appID: String, bucket: String, after cursor: Int64, limit: Int) async throws -> [AppFeedEntry] {
        try await rows("""
            SELECT \(unescaped: Columns.change), owner, app_sequence FROM changes
            WHERE app_id = \(appID) AND bucket = \(bucket) AND app_sequence > \(cursor)
            ORDER BY app_sequence LIMIT \(limit)
            """).map { row in
            let cells = row.makeRandomAccess()
            return AppFeedEntry(
                ownerKey: try cells[9].decode(String.self), appSequence: try cells[10].decode(Int64.self),
                change: try Columns.change(row))
        }
    }

    // MARK: Helpers

    func bucketVersion(_ scope: BucketScope) async throws -> ChangeVersion? {
        try await rows("""
            SELECT epoch, last_sequence FROM buckets
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND name = \(scope.bucket)
            """).first.map { row in
            let (epoch, sequence) = try row.decode((Int64, Int64).self)
            return ChangeVersion(epoch: UInt32(truncatingIfNeeded: epoch), sequence: sequence)
        }
    }

    /// A new bucket's epoch: random, so that a cursor from a dropped and re-created bucket is refused.
    private static func newEpoch() -> Int64 {
        Int64(UInt32.random(in: 1...UInt32.max))
    }

    private static func changeQuery(_ scope: BucketScope, changeID: String) -> PostgresQuery {
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
