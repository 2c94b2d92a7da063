import LockstepCore
public import LockstepServer
import Logging
import PostgresNIO

extension PostgresStore {
    /// Plans and writes a group of changes in one transaction: one flush for the group.
    ///
    /// It first takes the row locks of the group's buckets, in one order on every node; while
    /// they are held no other transaction commits to those buckets, so what is read next
    /// (objects, accepted change ids, histories) is what the plan may rely on. Then
    /// ``GroupPlan`` decides, from memory, as if each app's commit order stood at 0. One
    /// statement writes the objects, snapshots and buckets' positions and, last, takes the
    /// apps' row locks (after the buckets', as everywhere, so that two groups never deadlock);
    /// the group is moved to its apps' places in their commit order, and one more statement
    /// writes the changes and the apps' positions. So the apps' locks, which every group of an
    /// app waits for, are held while a group is written, not while it is read and planned:
    /// another group on other buckets is planned meanwhile (``concurrentCommits``), and takes
    /// its places after this one commits. The group ends with a `NOTIFY` for each app it wrote
    /// to, naming the run of the app's commit order it took (``ChangeNotification``),
    /// delivered only if the transaction commits, which the relay on every other node follows.
    ///
    /// Each statement is a round trip that the lane waits out (seven in all, when no history
    /// is read), so statements that could be one are: a data-modifying `WITH` query per table.
    public func commit(_ group: ChangeGroup) async throws -> [ChangeOutcome] {
        try await transaction { connection in
            let reads = try await PrefetchedReads.load(for: group, on: connection, logger: logger)
            var plan = GroupPlan(group)
            var writes = try plan.run(reading: reads)
            guard !writes.accepted.isEmpty else { return .commit(writes.outcomes) }
            // Encoded before the apps' locks are taken, to hold them for less.
            let diffs = writes.accepted.map { StoredValueCoding.text($0.change.diff) ?? "" }
            let intents = writes.accepted.map { StoredValueCoding.text($0.change.intent) ?? "" }
            let apps = try await writeObjectsLockingApps(writes, connection)
            writes.placeInAppOrder(after: apps.positions)
            try await writeChanges(writes, diffs: diffs, intents: intents, committedAt: group.time, connection)
            try await recordChangeEvents(writes, group, generations: apps.webhookGenerations, connection)
            return .commit(writes.outcomes)
        }
    }

    /// Two groups at once: one is read and planned while the other is written.
    public var concurrentCommits: Int { 2 }

    /// Writes what does not depend on the group's places in its apps' commit orders (the
    /// objects, their snapshots and blob references, the buckets' positions), then locks the
    /// rows of the apps the group commits to, after its buckets' (everywhere in this order, so
    /// that no two transactions deadlock), and returns their last commit positions and the
    /// generations of their webhook endpoints (``WebhookInterest``).
    ///
    /// One statement, its tables written by data-modifying `WITH` queries: each statement is a
    /// round trip to PostgreSQL, which a lane waits out with the apps' locks held or not.
    private func writeObjectsLockingApps(_ writes: GroupWrites, _ connection: PostgresConnection) async throws
        -> (positions: [String: Int64], webhookGenerations: [String: Int64])
    {
        let snapshots = writes.accepted.filter(\.keepsSnapshot)
        let references = writes.accepted.flatMap { accepted in
            accepted.blobs.map { hash in (accepted: accepted, hash: hash.hex) }
        }
        let objectRows = Array(writes.objects)
        let addresses = objectRows.map(\.key)
        let written = objectRows.map(\.value)
        let objects = written.map(\.object)
        let feeds = Array(writes.feeds)
        let appIDs = Array(Set(writes.accepted.map(\.scope.appID))).sorted()
        let rows = try await Self.rows(connection, logger, """
            WITH snapshot_rows AS (
                INSERT INTO snapshots (app_id, owner, bucket, key, version, data)
                SELECT * FROM unnest(
                    \(snapshots.map(\.scope.appID))::text[], \(snapshots.map(\.scope.ownerKey))::text[],
                    \(snapshots.map(\.scope.bucket))::text[], \(snapshots.map(\.change.key))::text[],
                    \(snapshots.map { Int64($0.change.endVersion) })::bigint[], \(snapshots.map { StoredValueCoding.text($0.data) })::text[])
                ON CONFLICT (app_id, owner, bucket, key, version) DO UPDATE SET data = excluded.data
            ), reference_rows AS (
                INSERT INTO blob_references (app_id, hash, owner, bucket, key, last_version)
                SELECT app_id, hash, owner, bucket, key, max(last_version)
                FROM unnest(
                    \(references.map(\.accepted.scope.appID))::text[], \(references.map(\.hash))::text[],
                    \(references.map(\.accepted.scope.ownerKey))::text[], \(references.map(\.accepted.scope.bucket))::text[],
                    \(references.map(\.accepted.change.key))::text[], \(references.map { Int64($0.accepted.change.endVersion) })::bigint[]
                ) AS x(app_id, hash, owner, bucket, key, last_version)
                -- One row per object and blob: a group may name the same pair twice, which one
                -- INSERT … ON CONFLICT may not update twice, so the group's latest goes in.
                GROUP BY app_id, hash, owner, bucket, key
                ON CONFLICT (app_id, hash, owner, bucket, key)
                    DO UPDATE SET last_version = greatest(blob_references.last_version, excluded.last_version)
            ), object_rows AS (
                INSERT INTO objects (app_id, owner, bucket, key, version, data, deleted, member_stamps, sequence)
                SELECT * FROM unnest(
                    \(addresses.map(\.scope.appID))::text[], \(addresses.map(\.scope.ownerKey))::text[], \(addresses.map(\.scope.bucket))::text[],
                    \(objects.map(\.key))::text[], \(objects.map { Int64($0.version) })::bigint[], \(written.map(\.storedData))::text[],
                    \(objects.map(\.isDeleted))::boolean[], \(objects.map { StoredValueCoding.text($0.memberStamps) })::text[],
                    \(objects.map(\.sequence))::bigint[])
                ON CONFLICT (app_id, owner, bucket, key) DO UPDATE SET
                    version = excluded.version, data = excluded.data, deleted = excluded.deleted,
                    member_stamps = excluded.member_stamps, sequence = excluded.sequence
            ), feed_rows AS (
                UPDATE buckets b SET last_sequence = x.last_sequence
                FROM unnest(
                    \(feeds.map(\.key.appID))::text[], \(feeds.map(\.key.ownerKey))::text[], \(feeds.map(\.key.bucket))::text[],
                    \(feeds.map(\.value.sequence))::bigint[]) AS x(app_id, owner, name, last_sequence)
                WHERE b.app_id = x.app_id AND b.owner = x.owner AND b.name = x.name
            )
            SELECT id, last_sequence, webhook_generation FROM apps WHERE id = ANY(\(appIDs)::text[]) ORDER BY id FOR UPDATE
            """)
        var positions: [String: Int64] = [:]
        var generations: [String: Int64] = [:]
        for row in rows {
            let (id, position, generation) = try row.decode((String, Int64, Int64).self)
            positions[id] = position
            generations[id] = generation
        }
        return (positions, generations)
    }

    /// Writes the changes, in their places in the apps' commit orders (under the apps' locks),
    /// the apps' new positions, and the notifications of the commit.
    private func writeChanges(
        _ writes: GroupWrites, diffs: [String], intents: [String], committedAt: Int64, _ connection: PostgresConnection
    ) async throws {
        // Columns as arrays, bound in PostgreSQL's binary format and unnested there: JSON rows
        // cost the server an encoding (keys sorted, strings escaped) and PostgreSQL a parse,
        // a fifth of the server's CPU per change in `bench store`.
        let accepted = writes.accepted
        let changes = accepted.map(\.change)
        let apps = Array(writes.appSequences)
        // Notifications inside the transaction: PostgreSQL delivers them only if it commits,
        // and in the order sent, which the relay's catch-up relies on.
        let payloads = ChangeNotification.of(
            accepted.lazy.map { ($0.scope, $0.change.sequence, $0.appSequence) }, node: nodeID
        ).map(\.payload)
        // One statement, as in ``writeObjectsLockingApps(_:_:)``.
        try await Self.rows(connection, logger, """
            WITH change_rows AS (
                INSERT INTO changes (bucket_id, app_id, owner, bucket, sequence, key, operation, source_version, end_version, diff, intent,
                                     merged_without_base, client_id, change_id, edit_time, app_sequence, committed_at, origin, author,
                                     restored_from)
                SELECT b.id, x.app_id, x.owner, x.bucket, x.sequence, x.key, x.operation, NULLIF(x.source_version, -1), x.end_version,
                       NULLIF(x.diff, ''), NULLIF(x.intent, ''), x.merged_without_base, x.client_id, x.change_id,
                       CASE WHEN x.has_edit_time THEN x.edit_time END, x.app_sequence, \(committedAt), \(nodeID), x.author,
                       NULLIF(x.restored_from, -1)
                FROM unnest(
                    \(accepted.map(\.scope.appID))::text[], \(accepted.map(\.scope.ownerKey))::text[], \(accepted.map(\.scope.bucket))::text[],
                    \(changes.map(\.sequence))::bigint[], \(changes.map(\.key))::text[], \(changes.map(\.operation.rawValue))::text[],
                    \(changes.map { Int64($0.sourceVersion ?? -1) })::bigint[], \(changes.map { Int64($0.endVersion) })::bigint[],
                    \(diffs)::text[], \(intents)::text[],
                    \(changes.map(\.mergedWithoutBase))::boolean[], \(changes.map(\.clientID))::text[], \(changes.map(\.changeID))::text[],
                    \(changes.map { $0.editTime != nil })::boolean[], \(changes.map { $0.editTime ?? 0 })::bigint[],
                    \(accepted.map(\.appSequence))::bigint[], \(accepted.map(\.author.stored))::text[],
                    \(accepted.map { Int64($0.restoredFrom ?? -1) })::bigint[]
                ) AS x(app_id, owner, bucket, sequence, key, operation, source_version, end_version, diff, intent, merged_without_base,
                       client_id, change_id, has_edit_time, edit_time, app_sequence, author, restored_from)
                JOIN buckets b ON b.app_id = x.app_id AND b.owner = x.owner AND b.name = x.bucket
                -- In commit order, as accepted: a join may return them in any order, and rows that
                -- reach an index out of order split its pages half full (the feed's indexes grew 1.5×).
                ORDER BY x.app_sequence
            ), app_rows AS (
                UPDATE apps SET last_sequence = x.last_sequence
                FROM unnest(\(apps.map(\.key))::text[], \(apps.map(\.value))::bigint[]) AS x(id, last_sequence)
                WHERE apps.id = x.id
            )
            SELECT pg_notify(\(configuration.notificationChannel), payload)
            FROM unnest(\(payloads)::text[]) WITH ORDINALITY AS n(payload, position) ORDER BY position
            """)
    }
}

/// What a group reads, loaded before it is planned (PostgreSQL's queries are asynchronous,
/// ``GroupPlan`` is not), under the group's bucket row locks.
private struct PrefetchedReads: GroupReads {
    var feeds: [BucketScope: FeedPosition] = [:]
    var objects: [ObjectAddress: StoredObject] = [:]
    var accepted: [BucketScope: [String: ChangeRecord]] = [:]
    var timelines: [ObjectAddress: ObjectTimeline] = [:]

    static func load(for group: ChangeGroup, on connection: PostgresConnection, logger: Logger) async throws -> PrefetchedReads {
        var reads = PrefetchedReads()
        let scopes = Set(group.requests.map(\.scope)).sorted { ($0.appID, $0.ownerKey, $0.bucket) < ($1.appID, $1.ownerKey, $1.bucket) }
        for row in try await PostgresStore.rows(connection, logger, """
            INSERT INTO buckets (app_id, owner, name, epoch, last_sequence)
            SELECT app_id, owner, name, epoch, 0 FROM unnest(
                \(scopes.map(\.appID))::text[], \(scopes.map(\.ownerKey))::text[], \(scopes.map(\.bucket))::text[],
                \(scopes.map { _ in PostgresStore.newEpoch() })::bigint[]) AS x(app_id, owner, name, epoch)
            ORDER BY app_id, owner, name
            ON CONFLICT (app_id, owner, name) DO UPDATE SET last_sequence = buckets.last_sequence
            RETURNING app_id, owner, name, epoch, last_sequence
            """)
        {
            let (appID, owner, name, epoch, sequence) = try row.decode((String, String, String, Int64, Int64).self)
            reads.feeds[BucketScope(appID: appID, ownerKey: owner, bucket: name)] = FeedPosition(
                epoch: UInt32(truncatingIfNeeded: epoch), sequence: sequence)
        }

        let addresses = GroupPlan.addresses(of: group)
        for row in try await PostgresStore.rows(connection, logger, """
            SELECT o.app_id, o.owner, o.bucket, \(unescaped: Columns.object(of: "o")) FROM objects o
            JOIN unnest(
                \(addresses.map(\.scope.appID))::text[], \(addresses.map(\.scope.ownerKey))::text[], \(addresses.map(\.scope.bucket))::text[],
                \(addresses.map(\.key))::text[]) AS x(app_id, owner, bucket, key)
                ON o.app_id = x.app_id AND o.owner = x.owner AND o.bucket = x.bucket AND o.key = x.key
            """)
        {
            let (appID, owner, bucket) = try row.decode((String, String, String).self)
            let object = try Columns.object(row, from: 3)
            reads.objects[ObjectAddress(scope: BucketScope(appID: appID, ownerKey: owner, bucket: bucket), key: object.key)] = object
        }

        let requests = group.requests
        for row in try await PostgresStore.rows(connection, logger, """
            SELECT \(unescaped: Columns.change(of: "c")), c.app_id, c.owner, c.bucket
            FROM unnest(
                \(requests.map(\.scope.appID))::text[], \(requests.map(\.scope.ownerKey))::text[], \(requests.map(\.scope.bucket))::text[],
                \(requests.map(\.change.changeID))::text[]) AS x(app_id, owner, bucket, change_id)
            JOIN buckets b ON b.app_id = x.app_id AND b.owner = x.owner AND b.name = x.bucket
            JOIN changes c ON c.bucket_id = b.id AND c.change_id = x.change_id
            """)
        {
            let change = try Columns.change(row)
            let cells = row.makeRandomAccess()
            let scope = BucketScope(
                appID: try cells[Columns.changeCount].decode(String.self), ownerKey: try cells[Columns.changeCount + 1].decode(String.self),
                bucket: try cells[Columns.changeCount + 2].decode(String.self))
            reads.accepted[scope, default: [:]][change.changeID] = change
        }

        for (address, version) in GroupPlan.historyStarts(of: group, objects: reads.objects) {
            guard let current = reads.objects[address] else { continue }
            if let timeline = try await PostgresStore.timeline(address, from: version, through: current.version, on: connection, logger: logger) {
                reads.timelines[address] = timeline
            }
        }
        return reads
    }

    func feedPosition(of scope: BucketScope) throws -> FeedPosition {
        guard let feed = feeds[scope] else { throw PrefetchError.notLoaded("bucket \(scope)") }
        return feed
    }

    /// 0 for every app: the group is planned before its place in each app's commit order is
    /// known, and moved there under the app's lock (``GroupWrites/placeInAppOrder(after:)``).
    func appSequence(of appID: String) throws -> Int64? {
        0
    }

    func object(at address: ObjectAddress) throws -> StoredObject? {
        objects[address]
    }

    func acceptedChange(_ scope: BucketScope, changeID: String) throws -> ChangeRecord? {
        accepted[scope]?[changeID]
    }

    func timeline(at address: ObjectAddress, from version: Int, through current: StoredObject) throws -> ObjectTimeline? {
        guard let timeline = timelines[address], timeline.reaches(version), timeline.latestVersion == current.version else { return nil }
        return timeline
    }
}

private enum PrefetchError: Error {
    /// The plan asked for something the group's prefetch did not load: a defect.
    case notLoaded(String)
}
