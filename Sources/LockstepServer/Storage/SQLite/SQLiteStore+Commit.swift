import GRDB
import LockstepCore

extension SQLiteStore {
    /// Plans and writes a group of changes in one write transaction: one flush to disk for the
    /// whole group (see ``ChangeGroup``).
    public func commit(_ group: ChangeGroup) async throws -> [ChangeOutcome] {
        try await pool.writeWithoutTransaction { db in try self.commit(group, db) }
    }

    private func commit(_ group: ChangeGroup, _ db: Database) throws -> [ChangeOutcome] {
        try Self.inWriteTransaction(db) {
            var plan = GroupPlan(group)
            let writes = try plan.run(reading: SQLiteGroupReads(store: self, db: db, group: group))
            try Self.persist(writes, committedAt: group.time, db)
            let interest = webhookInterest.snapshot()
            if !interest.isEmpty { try recordChangeEvents(writes, group, interest: interest, db) }
            for (appID, sequence) in writes.appSequences { self.appSequences.advance(appID, to: sequence) }
            return writes.outcomes
        }
    }

    /// Runs `body` in an immediate write transaction whose `BEGIN` and `COMMIT` are statements
    /// prepared once: GRDB's own transactions compile both anew each time, a tenth of the
    /// instructions of a one-change commit.
    private static func inWriteTransaction<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            let result = try body()
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            // Rolls back what is left of the transaction, if SQLite has not already.
            try? db.rollback()
            throw error
        }
    }

    private static func persist(_ writes: GroupWrites, committedAt: Int64, _ db: Database) throws {
        let insertChange = try DirectStatement(db.cachedStatement(sql: """
            INSERT INTO changes (app_id, owner, bucket, sequence, key, operation, source_version, end_version, diff, intent,
                                 merged_without_base, client_id, change_id, edit_time, app_sequence, committed_at, author, restored_from)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """))
        let recordReference = try DirectStatement(db.cachedStatement(sql: """
            INSERT INTO blob_references (app_id, hash, owner, bucket, key, last_version) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (app_id, hash, owner, bucket, key) DO UPDATE SET last_version = max(last_version, excluded.last_version)
            """))
        let insertSnapshot = try DirectStatement(db.cachedStatement(
            sql: "INSERT OR REPLACE INTO snapshots (app_id, owner, bucket, key, version, data) VALUES (?, ?, ?, ?, ?, ?)"))
        for accepted in writes.accepted {
            let scope = accepted.scope
            let change = accepted.change
            try insertChange.run(in: scope, [
                SQLiteArgument(change.sequence), SQLiteArgument(change.key), SQLiteArgument(change.operation.rawValue),
                SQLiteArgument(change.sourceVersion), SQLiteArgument(change.endVersion),
                SQLiteArgument(StoredValueCoding.text(change.diff)), SQLiteArgument(StoredValueCoding.text(change.intent)),
                SQLiteArgument(change.mergedWithoutBase), SQLiteArgument(change.clientID), SQLiteArgument(change.changeID),
                SQLiteArgument(change.editTime), SQLiteArgument(accepted.appSequence), SQLiteArgument(committedAt),
                SQLiteArgument(accepted.author.stored), SQLiteArgument(accepted.restoredFrom),
            ])
            for hash in accepted.blobs {
                try recordReference.run([
                    .text(scope.appID), .text(hash.hex), .text(scope.ownerKey), .text(scope.bucket), .text(change.key),
                    SQLiteArgument(change.endVersion),
                ])
            }
            if accepted.keepsSnapshot {
                try insertSnapshot.run(in: scope, [
                    SQLiteArgument(change.key), SQLiteArgument(change.endVersion), SQLiteArgument(StoredValueCoding.text(accepted.data)),
                ])
            }
        }
        let upsertObject = try DirectStatement(db.cachedStatement(sql: """
            INSERT INTO objects (app_id, owner, bucket, key, version, data, deleted, member_stamps, sequence)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (app_id, owner, bucket, key) DO UPDATE SET
                version = excluded.version, data = excluded.data, deleted = excluded.deleted,
                member_stamps = excluded.member_stamps, sequence = excluded.sequence
            """))
        for (address, written) in writes.objects {
            let scope = address.scope
            let object = written.object
            try upsertObject.run(in: scope, [
                SQLiteArgument(object.key), SQLiteArgument(object.version), SQLiteArgument(written.storedData),
                SQLiteArgument(object.isDeleted), SQLiteArgument(StoredValueCoding.text(object.memberStamps)), SQLiteArgument(object.sequence),
            ])
        }
        // The bucket's and the app's positions follow from the changes (``bucketPositionSQL``).
    }
}

/// A group's reads, from inside its write transaction.
private struct SQLiteGroupReads: GroupReads {
    let store: SQLiteStore
    let db: Database
    /// The group's change ids that were accepted before it: every change's id is looked up,
    /// and one statement a bucket costs less than one a change.
    private let accepted: [BucketScope: [String: ChangeRecord]]

    init(store: SQLiteStore, db: Database, group: ChangeGroup) throws {
        self.store = store
        self.db = db
        var changeIDs: [BucketScope: [String]] = [:]
        for request in group.requests { changeIDs[request.scope, default: []].append(request.change.changeID) }
        var accepted: [BucketScope: [String: ChangeRecord]] = [:]
        for (scope, ids) in changeIDs {
            for record in try SQLiteStore.changes(db, scope, changeIDs: ids) {
                accepted[scope, default: [:]][record.changeID] = record
            }
        }
        self.accepted = accepted
    }

    func feedPosition(of scope: BucketScope) throws -> FeedPosition {
        let version = try SQLiteStore.ensureBucket(db, scope)
        return FeedPosition(epoch: version.epoch, sequence: version.sequence)
    }

    func appSequence(of appID: String) throws -> Int64? {
        try store.appSequence(db, appID)
    }

    func object(at address: ObjectAddress) throws -> StoredObject? {
        try SQLiteStore.object(db, address)
    }

    func acceptedChange(_ scope: BucketScope, changeID: String) throws -> ChangeRecord? {
        accepted[scope]?[changeID]
    }

    func timeline(at address: ObjectAddress, from version: Int, through current: StoredObject) throws -> ObjectTimeline? {
        try SQLiteStore.timeline(db, address, from: version, through: current)
    }
}

extension SQLiteStore: BlockingCommitStore {
    /// ``commit(_:)`` on the calling thread: GRDB runs a blocking write where it is called.
    func commitBlocking(_ group: ChangeGroup) throws -> [ChangeOutcome] {
        try pool.writeWithoutTransaction { db in try commit(group, db) }
    }
}
