import Foundation
import GRDB
import LockstepCore

/// One row of the outbox table, as the replica works with it.
///
/// A row is `queued` until the sync session takes it; then its payload (diff or full object,
/// source version) is frozen and it is `sent`, and it is resent unchanged, with the same ccid,
/// until the server answers. `accepted` means the server's HTTP answer said it applied the
/// change and the change feed will bring the acknowledgement. `rejected` rows stay for the app
/// to inspect; they are no longer pending.
///
/// A row that stands alone for its object is sent as the diff from the ghost to the local
/// object, so concurrent text edits merge. Rows handed to peers (`shared`), rows carried for a
/// peer (`author`), and rows queued behind others are sent as their member edits instead, each
/// member only while this row is still its latest writer.
struct OutboxRow {
    enum Status: String {
        case queued, sent, accepted, rejected
    }

    var id: Int64
    var bucket: String
    var key: String
    var changeID: String
    var operation: OutboxChange.Operation
    var priority: ChangePriority
    var status: Status
    var sourceVersion: Int?
    var diff: ObjectDiff?
    var fullData: JSONObject?
    /// The local object as it was when the change was sent (rebased as remote changes arrive):
    /// edits made after the change are the difference between this and the local object.
    var expected: JSONObject?
    var editTime: Int64?
    /// What this row's edits set and unset; `nil` for rows queued before peers existed.
    var members: MemberEdits?
    /// The client that made the change, when this client only carries it for a peer.
    var author: String?
    /// Handed to peers: its ccid is out, so it takes no further edits.
    var shared: Bool
    var error: Int?
    var message: String?
    var createdAt: Date

    init(row: Row) throws {
        id = row["id"]
        bucket = row["bucket"]
        key = row["key"]
        changeID = row["ccid"]
        operation = OutboxChange.Operation(rawValue: row["operation"]) ?? .modify
        priority = ChangePriority(rawValue: row["priority"]) ?? .normal
        status = Status(rawValue: row["status"]) ?? .queued
        sourceVersion = row["source_version"]
        let diffText: String? = row["diff"]
        diff = try diffText.map { try ObjectDiff(json: JSONValue(parsing: $0)) }
        let fullText: String? = row["full_data"]
        fullData = try fullText.map(LocalRecords.decode)
        let expectedText: String? = row["expected"]
        expected = try expectedText.map(LocalRecords.decode)
        editTime = row["edit_time"]
        let membersText: String? = row["members"]
        members = try membersText.map { try MemberEdits(json: JSONValue(parsing: $0)) }
        author = row["author"]
        shared = row["shared"]
        error = row["error"]
        message = row["message"]
        createdAt = Date(timeIntervalSince1970: row["created_at"])
    }

    var publicChange: OutboxChange {
        let publicStatus: OutboxChange.Status = switch status {
        case .queued: .queued
        case .sent, .accepted: .sent
        case .rejected: .rejected(code: error ?? 0, message: message)
        }
        return OutboxChange(
            id: id, bucket: bucket, key: key, changeID: changeID, operation: operation, priority: priority,
            status: publicStatus, editTime: editTime, createdAt: createdAt)
    }

    /// The change as the server reads it (`c:{…}` on the socket, an element of `POST /changes`).
    var wireJSON: JSONValue {
        var fields: JSONObject = ["id": .string(key), "ccid": .string(changeID), "o": .string(operation.rawValue)]
        if operation == .modify {
            if let sourceVersion { fields["sv"] = .integer(Int64(sourceVersion)) }
            if let fullData {
                fields["d"] = .object(fullData)
            } else {
                fields["v"] = (diff ?? ObjectDiff()).json
            }
        }
        if let editTime { fields["t"] = .integer(editTime) }
        // Recorded as the author's, not this carrier's: ties of edit times go by client id.
        if let author { fields["author"] = .string(author) }
        return .object(fields)
    }

    /// What this change sets and unsets; for a row queued before rows kept their member
    /// edits, the difference between the ghost and what the change was made to (or the local object).
    func memberEdits(_ db: Database) throws -> MemberEdits {
        if let members { return members }
        let ghost = try LocalRecords.ghost(db, bucket, key)?.data ?? [:]
        return MemberEdits(from: ghost, to: try expected ?? LocalRecords.local(db, bucket, key).data ?? ghost)
    }

    // MARK: Queries

    static func all(_ db: Database, _ bucket: String, _ key: String) throws -> [OutboxRow] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM outbox WHERE bucket = ? AND key = ? AND status != 'rejected' ORDER BY id"),
            arguments: [bucket, key]
        ).map(OutboxRow.init)
    }

    static func withChangeID(_ db: Database, _ bucket: String, _ changeIDs: [String]) throws -> OutboxRow? {
        for changeID in changeIDs {
            if let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM outbox WHERE bucket = ? AND ccid = ? AND status != 'rejected'"),
                arguments: [bucket, changeID])
            {
                return try OutboxRow(row: row)
            }
        }
        return nil
    }

    static func delete(_ db: Database, id: Int64) throws {
        try db.executeCached(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
    }

    static func deleteAll(_ db: Database, _ bucket: String, _ key: String) throws {
        try db.executeCached(
            sql: "DELETE FROM outbox WHERE bucket = ? AND key = ? AND status != 'rejected'", arguments: [bucket, key])
    }

    static func setExpected(_ db: Database, id: Int64, _ expected: JSONObject?) throws {
        try db.executeCached(
            sql: "UPDATE outbox SET expected = ? WHERE id = ?", arguments: [expected.map(LocalRecords.encode), id])
    }

    static func setStatus(_ db: Database, id: Int64, _ status: Status, error: Int? = nil, message: String? = nil) throws {
        try db.executeCached(
            sql: "UPDATE outbox SET status = ?, error = ?, message = ? WHERE id = ?",
            arguments: [status.rawValue, error, message, id])
    }

    /// Adds an edit to the object's queued change, or queues a new change: unsent edits to one
    /// object coalesce, keeping the highest priority and the latest edit time. A change already
    /// handed to peers takes no more edits. The edited members are stamped with the change.
    ///
    /// A change carries one edit time, by which the server settles its conflicts, so edits
    /// coalesce only while every member of the change keeps the time it was written at: an
    /// edit of other members later on queues a change of its own. (Stamped with the later
    /// time, a member written earlier would win over a concurrent write made in between.) Edits
    /// of an object the server has not seen yet always coalesce, and a removal takes every
    /// queued edit with it.
    static func enqueue(
        _ db: Database, _ bucket: String, _ key: String, _ operation: OutboxChange.Operation, priority: ChangePriority,
        editTime: Int64?, edits: MemberEdits, clientID: String
    ) throws {
        let changeID: String
        let queuedSQL = "FROM outbox WHERE bucket = ? AND key = ? AND status = 'queued' AND author IS NULL AND shared = 0"
        if operation == .remove {
            try db.execute(
                sql: "DELETE \(queuedSQL) AND id < (SELECT max(id) \(queuedSQL))", arguments: [bucket, key, bucket, key])
        }
        let latest = try Row.fetchOne(
            db, sql: "SELECT id, priority, ccid, members \(queuedSQL) ORDER BY id DESC LIMIT 1", arguments: [bucket, key])
        let earlier = try (latest?["members"] as String?).map { try MemberEdits(json: JSONValue(parsing: $0)) } ?? MemberEdits()
        let keepsTimes = earlier.members.subtracting(edits.members).allSatisfy { earlier.times[$0] == editTime }
        // An object the server has not seen has no other writers to be misjudged against, and
        // its creation must carry every member it is created with (a text created by a later
        // change would be a whole value, not a text another device's insert merges into).
        // Read only when the cheaper reasons to coalesce do not hold: a put is a hot path.
        if let queued = latest, try operation == .remove || keepsTimes || LocalRecords.ghost(db, bucket, key) == nil {
            let kept = max(priority.rawValue, queued["priority"] as Int)
            try db.executeCached(
                // A change waiting for attachments takes the edit and goes again: what it holds
                // back is held again when it is taken (see AttachmentHolds).
                sql: """
                    UPDATE outbox SET operation = ?, priority = ?, edit_time = COALESCE(?, edit_time), members = ?, waiting = 0
                    WHERE id = ?
                    """,
                arguments: [operation.rawValue, kept, editTime, encode(earlier.followed(by: edits)), queued["id"] as Int64])
            changeID = queued["ccid"]
        } else {
            changeID = newChangeID()
            try db.executeCached(
                sql: """
                    INSERT INTO outbox (bucket, key, ccid, operation, priority, status, edit_time, members, created_at)
                    VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?)
                    """,
                arguments: [bucket, key, changeID, operation.rawValue, priority.rawValue, editTime, encode(edits),
                            Date().timeIntervalSince1970])
        }
        for member in edits.members {
            try MemberStamps.set(
                db, bucket, key, members: [member],
                to: MemberStamp(time: edits.times[member] ?? editTime, clientID: clientID, changeID: changeID))
        }
    }

    /// Queues a peer's change for the server, to be sent with the peer's ccid and edit time.
    static func enqueueCarried(_ db: Database, _ change: PeerChange) throws {
        try db.executeCached(
            sql: """
                INSERT OR IGNORE INTO outbox
                    (bucket, key, ccid, operation, priority, status, edit_time, members, author, shared, created_at)
                VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?, 1, ?)
                """,
            arguments: [change.bucket, change.key, change.changeID, change.operation.rawValue, ChangePriority.normal.rawValue,
                        change.editTime, encode(change.edits), change.author, Date().timeIntervalSince1970])
    }

    static func encode(_ edits: MemberEdits) -> String {
        JSONSerializer().string(edits.json)
    }

    static func newChangeID() -> String {
        UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}
