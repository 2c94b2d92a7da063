import Foundation
import GRDB
import LockstepCore

/// The client's local copy of its buckets, and the only code that changes it.
///
/// Every operation is one SQLite transaction over objects, ghosts, the outbox and cursors, so
/// the four never disagree, even across a crash. Events are published after the commit.
final class Replica: Sendable {
    let database: DatabasePool
    let clientID: String
    let events: EventHub
    let editTimes: any EditTimeSource
    /// Wakes the sync session when the outbox has something new to send.
    let outboxChanged: Wakeup
    /// Buckets with a peer link open: local writes log their changes for peers at once.
    let peerLinks = PeerLinks()
    /// The bytes of attachments, beside the database.
    let blobFiles: BlobFiles
    /// Progress of attachment uploads and downloads, for the app.
    let transfers = Broadcast<TransferProgress>()
    /// Spaces this user lost, for the app (``LockstepClient/lostSpaces``).
    let spaceLosses = Broadcast<SpaceLoss>()

    init(directory: URL, editTimes: any EditTimeSource) throws {
        database = try ClientDatabase.open(directory: directory)
        blobFiles = try BlobFiles(storeDirectory: directory)
        blobFiles.removeLeftovers()
        events = EventHub()
        outboxChanged = Wakeup()
        self.editTimes = editTimes
        clientID = try database.write { db in
            if let existing = try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE name = 'clientid'")) {
                return existing
            }
            let created = "lockstep-swift-" + OutboxRow.newChangeID()
            try db.executeCached(sql: "INSERT INTO meta (name, value) VALUES ('clientid', ?)", arguments: [created])
            return created
        }
    }

    /// Runs a write transaction and publishes the events it returns once it has committed.
    func write(_ body: @Sendable @escaping (Database) throws -> [BucketEvent]) async throws {
        let events = try await database.write(body)
        self.events.publish(events)
    }

    /// A local write to `key` of `bucket`: `body` edits the object and queues its change, which
    /// goes to the peer log in the same transaction while a peer link is open. Durable when it
    /// returns; then the sync session (and any peer link) wakes to send it.
    func writeLocal(bucket: String, key: String, _ body: @Sendable @escaping (Database) throws -> [BucketEvent]) async throws {
        let clientID = clientID
        let peerLinks = peerLinks
        try await write { db in
            try Self.refuseIfForgotten(db, bucket)
            let events = try body(db)
            if peerLinks.isLinked(bucket) { try Self.shareOwnChanges(db, bucket, key: key, clientID: clientID) }
            return events
        }
        outboxChanged.signal()
    }

    // MARK: Buckets

    /// Adds `bucket` to the buckets this store syncs; `true` when it was not there yet.
    @discardableResult
    func register(bucket: String) throws -> Bool {
        try database.write { db in
            try db.executeCached(sql: "INSERT OR IGNORE INTO buckets (name) VALUES (?)", arguments: [bucket])
            return db.changesCount > 0
        }
    }

    func bucketNames() throws -> [String] {
        try database.read { db in try String.fetchAll(db.cachedStatement(sql: "SELECT name FROM buckets ORDER BY name")) }
    }

    // MARK: Reading

    func object(bucket: String, key: String) throws -> JSONObject? {
        try database.read { db in try LocalRecords.local(db, bucket, key).data }
    }

    func objects(bucket: String) throws -> [(key: String, object: JSONObject)] {
        try database.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT key, data FROM objects WHERE bucket = ? AND deleted = 0 ORDER BY key"), arguments: [bucket]
            ).map { row in (key: row["key"] as String, object: try LocalRecords.decode(row["data"])) }
        }
    }

    // MARK: Local writes

    /// Stores `object` as the local state of `key` and queues the change for the server.
    func put(bucket: String, key: String, object: JSONObject, priority: ChangePriority) async throws {
        try await put(bucket: bucket, key: key, priority: priority) { _ in object }
    }

    /// Stores what `make` returns as the local state of `key`, and queues the change for the
    /// server. `make` runs inside the write transaction, on the object as it is now (`nil` when
    /// there is none), so no other write slips in between.
    func put(
        bucket: String, key: String, priority: ChangePriority, _ make: @Sendable @escaping (JSONObject?) throws -> JSONObject
    ) async throws {
        let editTime = editTimes.serverTimeNow()
        let clientID = clientID
        try await writeLocal(bucket: bucket, key: key) { db in
            let old = try LocalRecords.local(db, bucket, key)
            let ghost = try LocalRecords.ghost(db, bucket, key)
            if old == .removed || ghost?.isDeleted == true {
                throw LockstepClientError.removed(bucket: bucket, key: key)
            }
            let object = try make(old.data)
            guard old != .present(object) else { return [] }
            let new = LocalState.present(object)
            try LocalRecords.setLocal(db, bucket, key, new)
            try Self.enqueueEdit(db, bucket, key, from: old.data ?? [:], to: object, priority: priority, at: editTime, by: clientID)
            return BucketEvent.between(old, new, bucket: bucket, key: key, origin: .local).map { [$0] } ?? []
        }
    }

    /// Changes the local state of an existing object through `transform`.
    func update(bucket: String, key: String, priority: ChangePriority, _ transform: @Sendable @escaping (inout JSONObject) throws -> Void) async throws {
        let editTime = editTimes.serverTimeNow()
        let clientID = clientID
        try await writeLocal(bucket: bucket, key: key) { db in
            let old = try LocalRecords.local(db, bucket, key)
            switch old {
            case .removed: throw LockstepClientError.removed(bucket: bucket, key: key)
            case .absent: throw LockstepClientError.notFound(bucket: bucket, key: key)
            case .present(let before):
                var object = before
                try transform(&object)
                let new = LocalState.present(object)
                guard new != old else { return [] }
                try LocalRecords.setLocal(db, bucket, key, new)
                try Self.enqueueEdit(db, bucket, key, from: before, to: object, priority: priority, at: editTime, by: clientID)
                return BucketEvent.between(old, new, bucket: bucket, key: key, origin: .local).map { [$0] } ?? []
            }
        }
    }

    /// Removes `key` locally (leaving a tombstone) and queues the removal for the server, unless
    /// the server never heard of the object and no peer holds it.
    func delete(bucket: String, key: String, priority: ChangePriority) async throws {
        let editTime = editTimes.serverTimeNow()
        let clientID = clientID
        try await writeLocal(bucket: bucket, key: key) { db in
            let old = try LocalRecords.local(db, bucket, key)
            guard case .present = old else {
                if old == .removed { return [] }
                throw LockstepClientError.notFound(bucket: bucket, key: key)
            }
            try LocalRecords.setLocal(db, bucket, key, .removed)
            let known = try LocalRecords.ghost(db, bucket, key) != nil
                || OutboxRow.all(db, bucket, key).contains { $0.status != .queued || $0.shared || $0.author != nil }
            if known {
                try OutboxRow.enqueue(
                    db, bucket, key, .remove, priority: priority, editTime: editTime, edits: MemberEdits(), clientID: clientID)
            } else {
                try OutboxRow.deleteAll(db, bucket, key)
            }
            return BucketEvent.between(old, .removed, bucket: bucket, key: key, origin: .local).map { [$0] } ?? []
        }
    }
}

extension Replica {
    /// Queues the edit from `old` to `new`, stamped no earlier than what it overwrites.
    static func enqueueEdit(
        _ db: Database, _ bucket: String, _ key: String, from old: JSONObject, to new: JSONObject, priority: ChangePriority,
        at now: Int64?, by clientID: String
    ) throws {
        let time = try MemberStamps.editTime(db, bucket, key, members: MemberEdits(from: old, to: new).members, now: now)
        try OutboxRow.enqueue(
            db, bucket, key, .modify, priority: priority, editTime: time, edits: MemberEdits(from: old, to: new, at: time),
            clientID: clientID)
    }

    /// Changes not yet acknowledged by the server, and uploads not completed. A change held
    /// back for an upload counts as its upload does: not at all once that upload failed for good.
    func pendingCount() throws -> Int {
        try database.read { db in
            try Int.fetchOne(db.cachedStatement(sql: """
                SELECT (SELECT COUNT(*) FROM outbox WHERE status != 'rejected' AND waiting = 0)
                    + (SELECT COUNT(*) FROM uploads WHERE error IS NULL)
                """)) ?? 0
        }
    }
}
