import Foundation
import GRDB
import LockstepCore

/// One row of the upload queue, with its blob's size and type.
struct UploadRow: Sendable, Equatable {
    var sha256: String
    var size: Int64
    var type: String
    var priority: ChangePriority
    /// The server's URL for this upload, once created.
    var location: String?
    /// The bytes the server confirmed it holds, as last heard.
    var acknowledged: Int64
    /// How many times the server discarded the upload (a hash mismatch) and it started over.
    var restarts: Int
    /// Why the upload stopped for good, if it did.
    var error: AttachmentError?

    var attachment: Attachment { Attachment(sha256: sha256, size: size, type: type) }

    init(row: Row) {
        sha256 = row["sha256"]
        size = row["size"]
        type = row["type"]
        priority = ChangePriority(rawValue: row["priority"]) ?? .low
        location = row["location"]
        acknowledged = row["acknowledged"]
        restarts = row["restarts"]
        // An error this version cannot read still stops the upload.
        error = (row["error"] as String?).map { text in
            (try? JSONDecoder().decode(AttachmentError.self, from: Data(text.utf8))) ?? .localStore(text)
        }
    }
}

/// Reads and writes the rows behind attachments (`blobs`) and the upload queue (`uploads`),
/// inside a transaction the caller holds.
enum AttachmentRecords {
    /// Notes that the file of `attachment` is in the local store, just used.
    static func recordStored(_ db: Database, _ attachment: Attachment) throws {
        try db.executeCached(
            sql: """
                INSERT INTO blobs (sha256, size, type, stored, last_used) VALUES (?, ?, ?, 1, ?)
                ON CONFLICT (sha256) DO UPDATE SET stored = 1, last_used = excluded.last_used
                """,
            arguments: [attachment.sha256, attachment.size, attachment.type, Date().timeIntervalSince1970])
    }

    static func isStored(_ db: Database, _ sha256: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT stored FROM blobs WHERE sha256 = ?"), arguments: [sha256]) ?? false
    }

    static func isUploaded(_ db: Database, _ sha256: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT uploaded FROM blobs WHERE sha256 = ?"), arguments: [sha256]) ?? false
    }

    /// Puts `sha256` in the upload queue at `priority` (raising the priority of an upload queued
    /// already, and retrying one that had failed), unless this user uploaded it before.
    /// Returns whether it is queued now.
    @discardableResult
    static func queueUpload(_ db: Database, _ sha256: String, priority: ChangePriority) throws -> Bool {
        guard try !isUploaded(db, sha256) else { return false }
        try db.executeCached(
            sql: """
                INSERT INTO uploads (sha256, priority, created_at) VALUES (?, ?, ?)
                ON CONFLICT (sha256) DO UPDATE SET priority = max(priority, excluded.priority), error = NULL
                """,
            arguments: [sha256, priority.rawValue, Date().timeIntervalSince1970])
        return true
    }

    /// Whether the upload of `sha256` has not completed: a member that refers to it is held back.
    static func isPendingUpload(_ db: Database, _ sha256: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM uploads WHERE sha256 = ?)"), arguments: [sha256]) ?? false
    }

    /// Whether any upload has not completed; when none has, nothing is held back (one query
    /// on the hot path of sending).
    static func anyPendingUpload(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM uploads)")) ?? false
    }

    /// The upload to run next: the highest priority, then the oldest, among those not stopped.
    static func nextUpload(_ db: Database) throws -> UploadRow? {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT u.*, b.size, b.type FROM uploads AS u JOIN blobs AS b USING (sha256)
            WHERE u.error IS NULL ORDER BY u.priority DESC, u.seq LIMIT 1
            """)).map(UploadRow.init)
    }

    static func upload(_ db: Database, _ sha256: String) throws -> UploadRow? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT u.*, b.size, b.type FROM uploads AS u JOIN blobs AS b USING (sha256) WHERE u.sha256 = ?"),
            arguments: [sha256]
        ).map(UploadRow.init)
    }

    static func uploads(_ db: Database) throws -> [UploadRow] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT u.*, b.size, b.type FROM uploads AS u JOIN blobs AS b USING (sha256) ORDER BY u.priority DESC, u.seq
            """)).map(UploadRow.init)
    }

    /// Whether a data change at `priority` or above waits in the outbox (queued, or sent and
    /// not acknowledged): an upload at `priority` does not start, or go on, while one does.
    static func dataChangesWaiting(_ db: Database, atOrAbove priority: ChangePriority) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: """
                SELECT EXISTS (SELECT 1 FROM outbox WHERE status != 'rejected' AND waiting = 0 AND priority >= ?)
                """),
            arguments: [priority.rawValue]) ?? false
    }

    static func setProgress(_ db: Database, _ sha256: String, location: String?, acknowledged: Int64) throws {
        try db.executeCached(
            sql: "UPDATE uploads SET location = ?, acknowledged = ? WHERE sha256 = ?", arguments: [location, acknowledged, sha256])
    }

    /// The server discarded the upload: it starts over from byte 0.
    static func restart(_ db: Database, _ sha256: String) throws {
        try db.executeCached(
            sql: "UPDATE uploads SET acknowledged = 0, restarts = restarts + 1 WHERE sha256 = ?", arguments: [sha256])
    }

    /// Stops the upload for good, keeping `error` (as JSON) for the app to see.
    static func fail(_ db: Database, _ sha256: String, _ error: AttachmentError) throws {
        let json = String(decoding: try JSONEncoder().encode(error), as: UTF8.self)
        try db.executeCached(sql: "UPDATE uploads SET error = ? WHERE sha256 = ?", arguments: [json, sha256])
    }

    /// The server holds the whole blob for this user: it leaves the queue, and the changes held
    /// back for it may go (those still waiting for another upload wait again when next taken).
    static func complete(_ db: Database, _ sha256: String) throws {
        try db.executeCached(sql: "DELETE FROM uploads WHERE sha256 = ?", arguments: [sha256])
        try db.executeCached(sql: "UPDATE blobs SET uploaded = 1 WHERE sha256 = ?", arguments: [sha256])
        let waiting = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT q.id, q.members, o.data FROM outbox AS q LEFT JOIN objects AS o ON o.bucket = q.bucket AND o.key = q.key
            WHERE q.waiting = 1
            """))
        for row in waiting {
            let edits = try (row["members"] as String?).map { try MemberEdits(json: JSONValue(parsing: $0)) } ?? MemberEdits()
            let local = try (row["data"] as String?).map(LocalRecords.decode) ?? [:]
            let referred = Attachment.references(in: .object(edits.assigned)) + Attachment.references(in: .object(local))
            if referred.contains(where: { $0.sha256 == sha256 }) {
                try db.executeCached(sql: "UPDATE outbox SET waiting = 0 WHERE id = ?", arguments: [row["id"] as Int64])
            }
        }
    }

    static func touch(_ db: Database, _ sha256: String) throws {
        try db.executeCached(
            sql: "UPDATE blobs SET last_used = ? WHERE sha256 = ?", arguments: [Date().timeIntervalSince1970, sha256])
    }

    /// Bytes of attachment files on the device.
    static func storedBytes(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(SUM(size), 0) FROM blobs WHERE stored = 1")) ?? 0
    }

    /// Marks the least recently used files gone until what stays fits in `limit` bytes, and
    /// returns them for the caller to delete once the transaction has committed. Never a file
    /// waiting to upload (it is the only copy), nor `keeping` (just asked for).
    static func evict(_ db: Database, toFit limit: Int64, keeping: String?) throws -> [String] {
        var total = try storedBytes(db)
        guard total > limit else { return [] }
        var evicted: [String] = []
        let candidates = try Row.fetchCursor(
            db.cachedStatement(sql: """
                SELECT sha256, size FROM blobs AS b WHERE stored = 1 AND sha256 != ?
                    AND NOT EXISTS (SELECT 1 FROM uploads AS u WHERE u.sha256 = b.sha256)
                ORDER BY last_used
                """),
            arguments: [keeping ?? ""])
        while total > limit, let row = try candidates.next() {
            evicted.append(row["sha256"])
            total -= row["size"] as Int64
        }
        for sha256 in evicted {
            try db.executeCached(sql: "UPDATE blobs SET stored = 0 WHERE sha256 = ?", arguments: [sha256])
        }
        return evicted
    }
}
