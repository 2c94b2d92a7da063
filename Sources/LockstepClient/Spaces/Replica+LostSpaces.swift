import GRDB

extension Replica {
    /// Forgets every bucket of `space` this store syncs (see ``forget(bucket:reason:)``).
    func forget(space: String, reason: String) async throws {
        for bucket in try bucketNames() where SpaceName.space(ofBucket: bucket) == space {
            try await forget(bucket: bucket, reason: reason)
        }
    }

    /// Forgets a bucket of a space this user lost (removed from it, or it was deleted): its
    /// objects, ghosts, cursor, peer key and peer records go, and it is no longer synced, by
    /// the server or by peers.
    ///
    /// Nothing the user changed is dropped silently: every change the server had not
    /// acknowledged stays in the outbox as rejected, code 403 with `reason`, for the app to
    /// show. (A change the server's HTTP answer already accepted landed before the loss, and
    /// goes.) Each object the app saw goes with a ``BucketEvent`` of origin
    /// ``BucketEvent/Origin/revoked(message:)``, and the loss with a ``SpaceLoss``.
    func forget(bucket: String, reason: String) async throws {
        try await write { db in
            let keys = try String.fetchAll(
                db.cachedStatement(sql: "SELECT key FROM objects WHERE bucket = ? AND deleted = 0 ORDER BY key"), arguments: [bucket])
            try db.executeCached(
                sql: "UPDATE outbox SET status = 'rejected', error = 403, message = ? WHERE bucket = ? AND status IN ('queued', 'sent')",
                arguments: [reason, bucket])
            try db.executeCached(sql: "DELETE FROM outbox WHERE bucket = ? AND status = 'accepted'", arguments: [bucket])
            for table in ["objects", "ghosts", "stamps", "peer_log", "peer_cursors", "applied_changes"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE bucket = ?", arguments: [bucket])
            }
            try db.executeCached(sql: "DELETE FROM buckets WHERE name = ?", arguments: [bucket])
            // Without the peer key, no peer link on the bucket can be opened from this device.
            try db.executeCached(sql: "DELETE FROM meta WHERE name = ?", arguments: ["peerkey:" + bucket])
            return keys.map { BucketEvent(kind: .deleted, bucket: bucket, key: $0, object: nil, origin: .revoked(message: reason)) }
        }
        if let space = SpaceName.space(ofBucket: bucket) { spaceLosses.publish(SpaceLoss(space: space, bucket: bucket, reason: reason)) }
    }

    /// Refuses a write to a bucket of a space this user lost: a local write through a bucket
    /// the app still held, which would wait in the outbox for a sync that never comes, or what
    /// a peer link opened before the loss brings (which ends the link). Opening the space's
    /// bucket again, once a member again, makes it writable again.
    static func refuseIfForgotten(_ db: Database, _ bucket: String) throws {
        guard let space = SpaceName.space(ofBucket: bucket) else { return }
        let synced = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM buckets WHERE name = ?)"), arguments: [bucket]) ?? false
        if !synced { throw SpaceError.notFound(space: space) }
    }
}
