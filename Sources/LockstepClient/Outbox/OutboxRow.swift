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
        return .object(fields)
    }

    // MARK: Queries

    static func all(_ db: Database, _ bucket: String, _ key: String) throws -> [OutboxRow] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM outbox WHERE bucket = ? AND key = ? AND status != 'rejected' ORDER BY id",
            arguments: [bucket, key]
        ).map(OutboxRow.init)
    }

    static func withChangeID(_ db: Database, _ bucket: String, _ changeIDs: [String]) throws -> OutboxRow? {
        for changeID in changeIDs {
            if let row = try Row.fetchOne(
                db, sql: "SELECT * FROM outbox WHERE bucket = ? AND ccid = ? AND status IN ('sent', 'accepted')",
                arguments: [bucket, changeID])
            {
                return try OutboxRow(row: row)
            }
        }
        return nil
    }

    static func delete(_ db: Database, id: Int64) throws {
        try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
    }

    static func deleteAll(_ db: Database, _ bucket: String, _ key: String) throws {
        try db.execute(
            sql: "DELETE FROM outbox WHERE bucket = ? AND key = ? AND status != 'rejected'", arguments: [bucket, key])
    }

    static func setExpected(_ db: Database, id: Int64, _ expected: JSONObject?) throws {
        try db.execute(
            sql: "UPDATE outbox SET expected = ? WHERE id = ?", arguments: [expected.map(LocalRecords.encode), id])
    }

    static func setStatus(_ db: Database, id: Int64, _ status: Status, error: Int? = nil, message: String? = nil) throws {
        try db.execute(
            sql: "UPDATE outbox SET status = ?, error = ?, message = ? WHERE id = ?",
            arguments: [status.rawValue, error, message, id])
    }

    /// Adds an edit to the object's queued change, or queues a new change: unsent edits to one
    /// object coalesce, keeping the highest priority and the latest edit time.
    static func enqueue(
        _ db: Database, _ bucket: String, _ key: String, _ operation: OutboxChange.Operation, priority: ChangePriority,
        editTime: Int64?
    ) throws {
        if let queued = try Row.fetchOne(
            db, sql: "SELECT id, priority FROM outbox WHERE bucket = ? AND key = ? AND status = 'queued'",
            arguments: [bucket, key])
        {
            let kept = max(priority.rawValue, queued["priority"] as Int)
            try db.execute(
                sql: "UPDATE outbox SET operation = ?, priority = ?, edit_time = COALESCE(?, edit_time) WHERE id = ?",
                arguments: [operation.rawValue, kept, editTime, queued["id"] as Int64])
        } else {
            try db.execute(
                sql: """
                    INSERT INTO outbox (bucket, key, ccid, operation, priority, status, edit_time, created_at)
                    VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)
                    """,
                arguments: [bucket, key, newChangeID(), operation.rawValue, priority.rawValue, editTime,
                            Date().timeIntervalSince1970])
        }
    }

    static func newChangeID() -> String {
        UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}
