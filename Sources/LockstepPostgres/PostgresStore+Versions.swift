import LockstepCore
public import LockstepServer
import Logging
import PostgresNIO

extension PostgresStore {
    public func versions(_ scope: BucketScope, key: String, from oldest: Int, through newest: Int) async throws -> [VersionRecord] {
        try await snapshotRead { connection in
            guard let object = try await Self.rows(connection, logger, """
                SELECT version, history_from FROM objects
                WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND key = \(key)
                """).first
            else { return [] }
            let (version, historyFrom) = try object.decode((Int, Int).self)
            let first = max(oldest, historyFrom, 1)
            let last = min(newest, version)
            guard first <= last,
                let timeline = try await Self.timeline(
                    ObjectAddress(scope: scope, key: key), from: first, through: last, on: connection, logger: logger)
            else { return [] }
            let authorships = try await Self.rows(connection, logger, """
                SELECT c.end_version, c.author, u.username, c.client_id, c.change_id, c.committed_at, c.edit_time, c.restored_from
                FROM changes c LEFT JOIN users u ON u.app_id = \(scope.appID) AND u.id = c.author
                WHERE c.bucket_id = \(bucketIDOf: scope) AND c.key = \(key) AND c.end_version BETWEEN \(first) AND \(last)
                ORDER BY c.end_version
                """).map { row in
                let (version, author, authorName, clientID, changeID, committedAt, editTime, restoredFrom) = try row.decode(
                    (Int, String?, String?, String, String, Int64, Int64?, Int?).self)
                return VersionAuthorship(
                    version: version, author: author, authorName: authorName, clientID: clientID, changeID: changeID,
                    committedAt: committedAt, editTime: editTime, restoredFrom: restoredFrom)
            }
            return try VersionAuthorship.records(authorships, from: timeline)
        }
    }

    /// The bucket at a moment (see ``SQLiteStore``'s, which it mirrors), in a few statements
    /// whatever the number of objects changed since: each object's last change before the
    /// moment, the snapshots those versions are rebuilt from, and the changes after them are
    /// each read for every object at once.
    public func moment(_ scope: BucketScope, at time: Int64) async throws -> BucketMoment.Lookup {
        try await snapshotRead { connection in
            guard let bucket = try await Self.rows(connection, logger, """
                SELECT id, pruned_through FROM buckets WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND name = \(scope.bucket)
                """).first
            else { return .found(BucketMoment(sequence: 0, changed: [])) }
            let (bucketID, prunedThrough) = try bucket.decode((Int64, Int64).self)
            // The feed read back from its end to the moment (no index by commit time).
            let sequence = try await Self.rows(connection, logger, """
                SELECT sequence FROM changes WHERE bucket_id = \(bucketID) AND committed_at <= \(time) ORDER BY sequence DESC LIMIT 1
                """).first?.decode(Int64.self) ?? 0
            guard sequence >= prunedThrough else {
                let earliest = try await Self.rows(connection, logger, """
                    SELECT committed_at FROM changes WHERE bucket_id = \(bucketID) AND sequence > \(prunedThrough) ORDER BY sequence LIMIT 1
                    """).first?.decode(Int64.self)
                return .beyondHistory(earliest: earliest ?? time)
            }
            let objects = try await Self.rows(connection, logger, """
                SELECT key, version, deleted, data, history_from FROM objects
                WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket) AND sequence > \(sequence)
                ORDER BY key
                """).map { row in try row.decode((String, Int, Bool, String, Int).self) }
            let keys = objects.map(\.0)

            var lastChanges: [String: (version: Int, isRemoval: Bool)] = [:]
            for row in try await Self.rows(connection, logger, """
                SELECT DISTINCT ON (c.key) c.key, c.end_version, c.operation FROM changes c
                WHERE c.bucket_id = \(bucketID) AND c.key = ANY(\(keys)::text[]) AND c.sequence <= \(sequence)
                ORDER BY c.key, c.end_version DESC
                """)
            {
                let (key, version, operation) = try row.decode((String, Int, String).self)
                lastChanges[key] = (version, operation == ChangeRecord.Operation.remove.rawValue)
            }
            let wanted = lastChanges.filter { !$0.value.isRemoval }.map { (key: $0.key, version: $0.value.version) }
            let timelines = try await Self.timelines(scope, bucketID: bucketID, wanted, on: connection, logger: logger)

            var changed: [BucketMoment.Object] = []
            for (key, version, isDeleted, data, historyFrom) in objects {
                let lastChange = lastChanges[key]
                let then = try BucketMoment.then(lastChange: lastChange, historyPruned: historyFrom > 0) {
                    guard let version = lastChange?.version else { return nil }
                    return try timelines[key]?.data(at: version)
                }
                changed.append(BucketMoment.Object(
                    key: key, version: version, isDeleted: isDeleted, data: try StoredValueCoding.object(data), then: then))
            }
            return .found(BucketMoment(sequence: sequence, changed: changed))
        }
    }

    /// For each object of `wanted`, its timeline from the latest snapshot at or before the
    /// version given through that version: two statements for them all.
    private static func timelines(
        _ scope: BucketScope, bucketID: Int64, _ wanted: [(key: String, version: Int)], on connection: PostgresConnection, logger: Logger
    ) async throws -> [String: ObjectTimeline] {
        guard !wanted.isEmpty else { return [:] }
        var bases: [String: (version: Int, data: JSONObject)] = [:]
        for row in try await rows(connection, logger, """
            SELECT DISTINCT ON (s.key) s.key, s.version, s.data FROM snapshots s
            JOIN unnest(\(wanted.map(\.key))::text[], \(wanted.map { Int64($0.version) })::bigint[]) AS x(key, version)
                ON s.app_id = \(scope.appID) AND s.owner = \(scope.ownerKey) AND s.bucket = \(scope.bucket) AND s.key = x.key
                AND s.version <= x.version
            ORDER BY s.key, s.version DESC
            """)
        {
            let (key, version, data) = try row.decode((String, Int, String).self)
            bases[key] = (version, try StoredValueCoding.object(data))
        }
        let from = wanted.map { Int64(bases[$0.key]?.version ?? 0) }
        var changes: [String: [ChangeRecord]] = [:]
        for row in try await rows(connection, logger, """
            SELECT \(unescaped: Columns.change(of: "c")) FROM changes c
            JOIN unnest(\(wanted.map(\.key))::text[], \(from)::bigint[], \(wanted.map { Int64($0.version) })::bigint[]) AS x(key, after, through)
                ON c.bucket_id = \(bucketID) AND c.key = x.key AND c.end_version > x.after AND c.end_version <= x.through
            ORDER BY c.key, c.end_version
            """)
        {
            let change = try Columns.change(row)
            changes[change.key, default: []].append(change)
        }
        var timelines: [String: ObjectTimeline] = [:]
        for (key, _) in wanted {
            let base = bases[key]
            timelines[key] = ObjectTimeline(baseVersion: base?.version ?? 0, baseData: base?.data ?? [:], changes: changes[key] ?? [])
        }
        return timelines
    }

    /// Runs `body` in a read-only transaction that sees one snapshot of the database: what a
    /// read of several statements needs to describe one moment.
    private func snapshotRead<Value: Sendable>(_ body: (PostgresConnection) async throws -> Value) async throws -> Value {
        try await transaction { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            return .commit(try await body(connection))
        }
    }
}
