import Foundation
import GRDB
import LockstepCore

/// Keeps members that refer to attachments not uploaded yet from reaching the server.
///
/// The server refuses a change that adds a reference to a blob the writer has not uploaded
/// whole (424), and no client must ever receive a reference to a blob the server cannot
/// serve. So when a change is taken from the outbox, each member it would send that differs
/// from what the server holds and refers, at any depth, to a blob still in the upload queue is
/// *held*: the change goes without it (the server keeps its old value), and the held members'
/// edits move to a change of their own marked `waiting`. A waiting change is not sent, and does
/// not hold back the object's later changes, until an upload it refers to completes (see
/// ``AttachmentRecords/complete(_:_:)``); then it is taken like any other, and held again if
/// it still refers to an upload under way.
///
/// The local object keeps the reference throughout: the app sees its photo at once.
enum AttachmentHolds {
    /// The members of `object` that differ from `base` (the server's version) and refer to a
    /// blob whose upload has not completed.
    static func held(_ db: Database, _ object: JSONObject, base: JSONObject) throws -> Set<String> {
        guard try AttachmentRecords.anyPendingUpload(db) else { return [] }
        var held: Set<String> = []
        for (name, value) in object where base[name] != value {
            for attachment in Attachment.references(in: value) where try AttachmentRecords.isPendingUpload(db, attachment.sha256) {
                held.insert(name)
                break
            }
        }
        return held
    }

    /// `object` with the `held` members as they are in `base`.
    static func withheld(_ held: Set<String>, from object: JSONObject, base: JSONObject) -> JSONObject {
        var sendable = object
        for name in held { sendable[name] = base[name] }
        return sendable
    }

    /// Moves the edits of the `held` members of `row`, which is about to be sent without them,
    /// to a new waiting change of the object. The members' stamps move with them, keeping their
    /// times: a held member differs from the server's version only by this device's own pending
    /// edit (a remote write that won would have set it to the server's value), so the new change
    /// is its latest writer.
    static func holdBack(_ db: Database, _ row: OutboxRow, held: Set<String>, values: JSONObject) throws {
        let stamps = try MemberStamps.all(db, row.bucket, row.key)
        var edits = MemberEdits()
        for name in held {
            edits.assigned[name] = values[name]
            if let time = stamps[name]?.time ?? row.editTime { edits.times[name] = time }
        }
        let changeID = OutboxRow.newChangeID()
        try db.executeCached(
            sql: """
                INSERT INTO outbox (bucket, key, ccid, operation, priority, status, edit_time, members, waiting, created_at)
                VALUES (?, ?, ?, 'M', ?, 'queued', ?, ?, 1, ?)
                """,
            arguments: [row.bucket, row.key, changeID, row.priority.rawValue, edits.times.values.max() ?? row.editTime,
                        OutboxRow.encode(edits), Date().timeIntervalSince1970])
        for name in held {
            guard let stamp = stamps[name] else { continue }
            try MemberStamps.set(
                db, row.bucket, row.key, members: [name], to: MemberStamp(time: stamp.time, clientID: stamp.clientID, changeID: changeID))
        }
    }

    /// After the server refused `row` for a reference to a blob this user has not uploaded
    /// (424): queues the upload of every blob the object refers to that the device holds and
    /// this user has not uploaded, and puts the row back in the queue to be taken again (with
    /// those members held). `false` when there is nothing to upload, and the refusal stands.
    static func uploadReferences(_ db: Database, _ row: OutboxRow) throws -> Bool {
        let local = try LocalRecords.local(db, row.bucket, row.key).data ?? [:]
        var queued = false
        for attachment in Attachment.references(in: .object(local)) where try AttachmentRecords.isStored(db, attachment.sha256) {
            // The server does not hold it for this user, whatever the device thought.
            try db.executeCached(sql: "UPDATE blobs SET uploaded = 0 WHERE sha256 = ?", arguments: [attachment.sha256])
            queued = try AttachmentRecords.queueUpload(db, attachment.sha256, priority: row.priority) || queued
        }
        guard queued else { return false }
        try db.executeCached(
            sql: """
                UPDATE outbox SET status = 'queued', error = 424, diff = NULL, source_version = NULL, expected = NULL,
                    full_data = NULL WHERE id = ?
                """,
            arguments: [row.id])
        return true
    }

    /// Marks a queued change that has nothing to send but held members as waiting.
    static func wait(_ db: Database, _ row: OutboxRow) throws {
        try db.executeCached(sql: "UPDATE outbox SET waiting = 1 WHERE id = ?", arguments: [row.id])
    }
}
