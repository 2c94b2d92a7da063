import Foundation
import GRDB
import LockstepCore

extension Replica {
    /// Hands this client's own pending changes of `bucket` to the peer log. From now on each is
    /// frozen under its ccid (later edits queue a new change), since peers may carry it to the
    /// server before this client does.
    func shareOwnChanges(bucket: String) async throws {
        let clientID = clientID
        try await database.write { db in try Self.shareOwnChanges(db, bucket, key: nil, clientID: clientID) }
    }

    /// ``shareOwnChanges(bucket:)`` inside the caller's transaction, for one object or (`nil`) all.
    static func shareOwnChanges(_ db: Database, _ bucket: String, key: String?, clientID: String) throws {
        var sql = "SELECT * FROM outbox WHERE bucket = ? AND author IS NULL AND shared = 0 AND status != 'rejected'"
        var arguments: StatementArguments = [bucket]
        if let key {
            sql += " AND key = ?"
            arguments += [key]
        }
        for row in try Row.fetchAll(db.cachedStatement(sql: sql + " ORDER BY id"), arguments: arguments).map(OutboxRow.init) {
            let change = PeerChange(
                bucket: bucket, key: row.key, changeID: row.changeID, author: clientID, operation: row.operation,
                edits: try row.memberEdits(db), editTime: row.editTime)
            try log(db, change, source: nil)
            try db.executeCached(sql: "UPDATE outbox SET shared = 1 WHERE id = ?", arguments: [row.id])
        }
    }

    /// The logged changes of `bucket` after `seq`, oldest first, leaving out those that came from `peer`.
    func peerChanges(bucket: String, after seq: Int64, excludingSource peer: String, limit: Int) async throws -> [LoggedPeerChange] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT seq, change FROM peer_log WHERE bucket = ? AND seq > ? AND (source IS NULL OR source != ?)
                    ORDER BY seq LIMIT ?
                    """,
                arguments: [bucket, seq, peer, limit]
            ).map { row in
                LoggedPeerChange(seq: row["seq"], change: try PeerChange(json: JSONValue(parsing: row["change"] as String), bucket: bucket))
            }
        }
    }

    /// The last position in `peer`'s log this client has taken in.
    func peerCursor(bucket: String, peer: String) async throws -> Int64 {
        try await database.read { db in
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT seq FROM peer_cursors WHERE bucket = ? AND peer = ?"), arguments: [bucket, peer]) ?? 0
        }
    }

    /// Takes in changes from `peer`'s log, in its order, and moves the cursor past them, in one
    /// transaction. Each applies by the merge rules: a removal is final, and each member goes
    /// to its latest writer by corrected time. The changes are queued for the server under their
    /// own ccids, and logged to pass on to other peers.
    func takeFromPeer(bucket: String, peer: String, _ changes: [LoggedPeerChange]) async throws {
        guard let last = changes.last else { return }
        let clientID = clientID
        try await write { db in
            try Self.refuseIfForgotten(db, bucket)
            var events: [BucketEvent] = []
            for logged in changes {
                if let event = try Self.take(db, logged.change, from: peer, clientID: clientID) { events.append(event) }
            }
            try db.executeCached(
                sql: """
                    INSERT INTO peer_cursors (bucket, peer, seq) VALUES (?, ?, ?)
                    ON CONFLICT (bucket, peer) DO UPDATE SET seq = max(seq, excluded.seq)
                    """,
                arguments: [bucket, peer, last.seq])
            return events
        }
        outboxChanged.signal()
    }

    private static func take(_ db: Database, _ change: PeerChange, from peer: String, clientID: String) throws -> BucketEvent? {
        guard try log(db, change, source: peer), change.author != clientID else { return nil }
        // Brought by the server already: an insert must not land a second time.
        guard try !AppliedChanges.contains(db, change.bucket, change.changeID) else { return nil }
        let (bucket, key) = (change.bucket, change.key)
        let old = try LocalRecords.local(db, bucket, key)
        let ghost = try LocalRecords.ghost(db, bucket, key)
        if old == .removed || ghost?.isDeleted == true { return nil }
        switch change.operation {
        case .remove:
            // Carried to the server only by devices that held the object: one that never did
            // keeps the tombstone, so that the object's creation, arriving later, stays dead.
            if old != .absent || ghost != nil { try OutboxRow.enqueueCarried(db, change) }
            return try setLocal(db, bucket, key, from: old, to: .removed, origin: .peer)
        case .modify:
            let won = try MemberStamps.raise(db, bucket, key, members: change.edits.members, to: change.stamp(of:))
            let (data, taken) = change.edits.merged(into: old.data ?? [:], winning: won)
            guard !taken.isEmpty else { return nil }
            try OutboxRow.enqueueCarried(db, change)
            return try setLocal(db, bucket, key, from: old, to: .present(data), origin: .peer)
        }
    }

    /// Logs a change for peers; `false` when it was logged before (this client has it).
    @discardableResult
    private static func log(_ db: Database, _ change: PeerChange, source: String?) throws -> Bool {
        try db.executeCached(
            sql: "INSERT OR IGNORE INTO peer_log (bucket, ccid, change, source) VALUES (?, ?, ?, ?)",
            arguments: [change.bucket, change.changeID, JSONSerializer().string(change.json), source])
        return db.changesCount > 0
    }

    // MARK: Peer keys

    func peerKey(bucket: String) throws -> String? {
        try database.read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE name = ?"), arguments: ["peerkey:" + bucket])
        }
    }

    func setPeerKey(_ key: String, bucket: String) throws {
        try database.write { db in
            try db.executeCached(
                sql: "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)", arguments: ["peerkey:" + bucket, key])
        }
    }
}
