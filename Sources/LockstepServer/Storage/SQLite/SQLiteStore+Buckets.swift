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
        try await pool.read { db in try Self.object(db, ObjectAddress(scope: scope, key: key)) }
    }

    public func objectData(_ scope: BucketScope, key: String, version: Int) async throws -> JSONObject? {
        try await pool.read { db in
            let address = ObjectAddress(scope: scope, key: key)
            guard let current = try Self.object(db, address), (1...current.version).contains(version) else { return nil }
            if version == current.version { return current.isDeleted ? nil : current.data }
            return try Self.timeline(db, address, from: version, through: version)?.data(at: version)
        }
    }

    public func change(_ scope: BucketScope, changeID: String) async throws -> ChangeRecord? {
        try await pool.read { db in try Self.change(db, scope, changeID: changeID) }
    }

    public func feed(_ scope: BucketScope, after cursor: ChangeVersion, limit: Int) async throws -> [ChangeRecord]? {
        try await pool.read { db in
            // A cursor before changes the pruner deleted could miss them: the client must index again.
            guard let current = try Self.bucketVersion(db, scope), current.epoch == cursor.epoch,
                cursor.sequence <= current.sequence, cursor.sequence >= (try Self.prunedThrough(db, scope))
            else { return nil }
            return try DirectStatement(
                db.cachedStatement(
                sql: """
                    SELECT \(Self.changeColumns) FROM changes WHERE app_id = ? AND owner = ? AND bucket = ? AND sequence > ?
                    ORDER BY sequence LIMIT ?
                    """)
            ).rows(in: scope, [SQLiteArgument(cursor.sequence), SQLiteArgument(limit)], Self.change)
        }
    }

    public func index(_ scope: BucketScope, _ query: IndexQuery) async throws -> IndexPage {
        let current = try await currentVersion(of: scope)
        let snapshot = query.snapshot ?? current.sequence
        return try await pool.read { db in
            // Unchanged since the snapshot: an object's latest change is its place.
            // One upper bound, the tighter of the two: given `sequence <= ? AND sequence < ?`,
            // SQLite walks the index down from the first and tests the second row by row, so
            // each page of a walk went through every page before it (a 100,000-object first
            // sync spent 3.8 of its 6.5 s here).
            let last = query.before.map { min(snapshot, $0 == .min ? .min : $0 - 1) } ?? snapshot
            var sql = "SELECT key, version, sequence\(query.includeData ? ", data" : "") FROM objects "
                + "WHERE app_id = ? AND owner = ? AND bucket = ? AND deleted = 0 AND sequence <= ?"
            var arguments: StatementArguments = [scope.appID, scope.ownerKey, scope.bucket, last]
            if let changedAfter = query.changedAfter {
                sql += " AND sequence > ?"
                arguments += [changedAfter]
            }
            sql += " ORDER BY sequence DESC LIMIT ?"
            arguments += [query.limit + 1]
            let unchanged = try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                IndexAsOf.Candidate(
                    place: row["sequence"],
                    entry: IndexPage.Entry(
                        key: row["key"], version: row["version"], data: query.includeData ? try StoredValueCoding.object(row["data"]) : nil))
            }
            // Changed since: placed where the snapshot had them.
            var changed: [IndexAsOf.Candidate] = []
            for row in try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT key, version, deleted, history_from FROM objects WHERE app_id = ? AND owner = ? AND bucket = ? AND sequence > ?
                    """),
                arguments: [scope.appID, scope.ownerKey, scope.bucket, snapshot])
            {
                let key: String = row["key"]
                let lastChange = try Row.fetchOne(
                    db.cachedStatement(sql: """
                        SELECT sequence, end_version, operation FROM changes
                        WHERE app_id = ? AND owner = ? AND bucket = ? AND key = ? AND sequence <= ? ORDER BY sequence DESC LIMIT 1
                        """),
                    arguments: [scope.appID, scope.ownerKey, scope.bucket, key, snapshot]
                ).map { row in
                    (sequence: row["sequence"] as Int64, version: row["end_version"] as Int, isRemoval: row["operation"] == ChangeRecord.Operation.remove.rawValue)
                }
                if let candidate = IndexAsOf.changedCandidate(
                    key: key, lastChange: lastChange, historyFrom: row["history_from"], current: (row["version"], row["deleted"]), query: query)
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
                let address = ObjectAddress(scope: scope, key: entry.key)
                let rebuilt = try Self.timeline(db, address, from: entry.version, through: entry.version)?.data(at: entry.version)
                if let listed = IndexAsOf.withData(entry, rebuilt: rebuilt, latest: try Self.object(db, address)) { entries.append(listed) }
            }
            return IndexPage(current: current, entries: entries, nextBefore: page.nextBefore)
        }
    }

    public func appFeed(appID: String, bucket: String, after cursor: Int64, limit: Int) async throws -> [AppFeedEntry] {
        try await pool.read { db in
            try DirectStatement(
                db.cachedStatement(
                sql: """
                    SELECT \(Self.changeColumns), owner, app_sequence FROM changes WHERE app_id = ? AND bucket = ? AND app_sequence > ?
                    ORDER BY app_sequence LIMIT ?
                    """)
            ).rows([SQLiteArgument(appID), SQLiteArgument(bucket), SQLiteArgument(cursor), SQLiteArgument(limit)], Self.appFeedEntry)
        }
    }

    public func newestAppFeed(appID: String, bucket: String, limit: Int) async throws -> [AppFeedEntry] {
        try await pool.read { db in
            try DirectStatement(
                db.cachedStatement(
                sql: """
                    SELECT \(Self.changeColumns), owner, app_sequence FROM changes WHERE app_id = ? AND bucket = ?
                    ORDER BY app_sequence DESC LIMIT ?
                    """)
            ).rows([SQLiteArgument(appID), SQLiteArgument(bucket), SQLiteArgument(limit)], Self.appFeedEntry).reversed()
        }
    }

    // MARK: Rows

    static func bucketVersion(_ db: Database, _ scope: BucketScope) throws -> ChangeVersion? {
        try DirectStatement(db.cachedStatement(sql: bucketPositionSQL)).firstRow(in: scope, []) { columns in
            ChangeVersion(epoch: UInt32(truncatingIfNeeded: columns.integer(0)), sequence: columns.integer(1))
        }
    }

    static func prunedThrough(_ db: Database, _ scope: BucketScope) throws -> Int64 {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT pruned_through FROM buckets WHERE app_id = ? AND owner = ? AND name = ?"),
            arguments: [scope.appID, scope.ownerKey, scope.bucket]) ?? 0
    }

    @discardableResult
    /// The bucket's feed version, making the bucket first when it has none. Every change
    /// commits through here: the usual bucket, which exists, costs one read of a prepared
    /// statement, and only a new one an insert.
    static func ensureBucket(_ db: Database, _ scope: BucketScope) throws -> ChangeVersion {
        if let version = try bucketVersion(db, scope) { return version }
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO buckets (app_id, owner, name, epoch, last_sequence) VALUES (?, ?, ?, ?, 0)")
            .execute(arguments: [scope.appID, scope.ownerKey, scope.bucket, Int64(UInt32.random(in: 1...UInt32.max))])
        return try bucketVersion(db, scope)!
    }

    /// Every commit reads its objects and looks its changes' ids up: these queries' texts are
    /// made once, not at each lookup.
    static let objectSQL = """
        SELECT key, version, data, deleted, member_stamps, sequence FROM objects
        WHERE app_id = ? AND owner = ? AND bucket = ? AND key = ?
        """
    private static let changeByIDSQL = "SELECT \(changeColumns) FROM changes WHERE app_id = ? AND owner = ? AND bucket = ? AND change_id = ?"
    /// Each id probes the change-id index, in the order SQLite is given. Left to choose, SQLite
    /// read the whole bucket through the primary key and tested each row against the list, a
    /// cost that grew with the bucket's history; as `change_id IN (SELECT …)` it built a table
    /// of the ids first, which cost a group of one change more than the lookup itself.
    static let changesByIDSQL = """
        SELECT \(changeColumns(of: "c")) FROM json_each(?4) AS wanted
        CROSS JOIN changes AS c INDEXED BY changes_by_change_id
        WHERE c.app_id = ?1 AND c.owner = ?2 AND c.bucket = ?3 AND c.change_id = wanted.value
        """

    static func object(_ db: Database, _ address: ObjectAddress) throws -> StoredObject? {
        try DirectStatement(db.cachedStatement(sql: objectSQL)).firstRow(in: address.scope, [SQLiteArgument(address.key)]) { columns in
            StoredObject(
                key: columns.text(0), version: columns.int(1), data: try StoredValueCoding.object(columns.text(2)),
                isDeleted: columns.bool(3), memberStamps: try StoredValueCoding.stamps(columns.text(4)), sequence: columns.integer(5))
        }
    }

    static func change(_ db: Database, _ scope: BucketScope, changeID: String) throws -> ChangeRecord? {
        try DirectStatement(db.cachedStatement(sql: changeByIDSQL)).firstRow(in: scope, [SQLiteArgument(changeID)], change)
    }

    /// The changes of a bucket with any of the client change ids `changeIDs`, in one statement.
    /// A single id is looked up alone, which costs less than reading it from a list.
    static func changes(_ db: Database, _ scope: BucketScope, changeIDs: [String]) throws -> [ChangeRecord] {
        if changeIDs.count == 1 { return try change(db, scope, changeID: changeIDs[0]).map { [$0] } ?? [] }
        let ids = JSONValue.array(changeIDs.map(JSONValue.string)).description
        return try DirectStatement(db.cachedStatement(sql: changesByIDSQL)).rows(in: scope, [.text(ids)], change)
    }

    /// The columns ``change(_:)`` reads, in its order.
    static let changeColumns =
        "sequence, key, operation, source_version, end_version, diff, intent, merged_without_base, client_id, change_id, edit_time"
    static let changeColumnCount: Int32 = 11

    /// ``changeColumns`` of the table named `alias` in a query.
    static func changeColumns(of alias: String) -> String {
        changeColumns.split(separator: ", ").map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// An entry of an app's feed: a row of ``changeColumns`` followed by `owner, app_sequence`.
    static func appFeedEntry(_ columns: SQLiteColumns) throws -> AppFeedEntry {
        AppFeedEntry(
            ownerKey: columns.text(changeColumnCount), appSequence: columns.integer(changeColumnCount + 1), change: try change(columns))
    }

    /// A change from a row that starts with ``changeColumns``.
    static func change(_ columns: SQLiteColumns) throws -> ChangeRecord {
        ChangeRecord(
            sequence: columns.integer(0), key: columns.text(1),
            operation: ChangeRecord.Operation(rawValue: columns.text(2)) ?? .modify,
            sourceVersion: columns.optionalInt(3), endVersion: columns.int(4),
            diff: try StoredValueCoding.diff(columns.optionalText(5)), intent: try StoredValueCoding.diff(columns.optionalText(6)),
            mergedWithoutBase: columns.bool(7), clientID: columns.text(8), changeID: columns.text(9),
            editTime: columns.optionalInteger(10))
    }
}
