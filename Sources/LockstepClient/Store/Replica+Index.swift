import GRDB
import LockstepCore

/// One entry of an index page: `{"id","v","d"}`.
struct IndexEntry: Sendable {
    var key: String
    var version: Int
    var data: JSONObject
}

/// One page of a bucket's index as the server sends it (`i:{…}`, `GET /index`).
struct IndexPage: Sendable {
    var current: String
    var entries: [IndexEntry]
    var mark: String?

    init(json: JSONValue) throws {
        guard let current = json["current"]?.stringValue, !current.isEmpty, let index = json["index"]?.arrayValue else {
            throw LockstepClientError.protocolViolation("an index page without current or index")
        }
        self.current = current
        entries = try index.map { item in
            guard let key = item["id"]?.stringValue, let version = item["v"]?.integerValue else {
                throw LockstepClientError.protocolViolation("an index entry without id or v")
            }
            return IndexEntry(key: key, version: Int(version), data: item["d"]?.objectValue ?? [:])
        }
        mark = json["mark"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// Where a bucket's sync stands: a cursor to resume the change feed from, or an index walk
/// (first sync, or after the server forgot the cursor) to start or continue.
enum BucketPosition: Sendable, Equatable {
    case changes(after: String)
    case index(mark: String?)
}

extension Replica {
    func position(bucket: String) throws -> BucketPosition {
        try database.read { db in
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT cv, walk_current, walk_mark FROM buckets WHERE name = ?"), arguments: [bucket])
            if let row, row["walk_current"] as String? != nil { return .index(mark: row["walk_mark"]) }
            if let cv = row?["cv"] as String? { return .changes(after: cv) }
            return .index(mark: nil)
        }
    }

    /// Starts an index walk over: the server no longer knows our cursor (`cv:?`), or never did.
    func restartIndex(bucket: String) async throws {
        try await database.write { db in
            try db.executeCached(
                sql: "UPDATE buckets SET walk_current = NULL, walk_mark = NULL, cv = NULL WHERE name = ?", arguments: [bucket])
        }
    }

    /// Takes in one index page. Each listed object's ghost becomes the server's version, with
    /// pending local edits replayed on top. On the last page the walk's `current` becomes the
    /// cursor, and objects the walk did not see (removed on the server) are removed here too.
    /// Returns whether the walk is complete.
    @discardableResult
    func takeIndexPage(bucket: String, _ page: IndexPage, isFirst: Bool) async throws -> Bool {
        let observed = events.isObserved(bucket)
        let events = try await database.write { db -> [BucketEvent] in
            if isFirst {
                try db.executeCached(
                    sql: "UPDATE buckets SET walk_id = walk_id + 1, walk_current = ?, walk_mark = NULL WHERE name = ?",
                    arguments: [page.current, bucket])
                try db.executeCached(sql: "UPDATE ghosts SET walk = 0 WHERE bucket = ? AND walk = -1", arguments: [bucket])
            }
            let walk = try Int64.fetchOne(db.cachedStatement(sql: "SELECT walk_id FROM buckets WHERE name = ?"), arguments: [bucket]) ?? 0
            let anyPending = try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM outbox WHERE bucket = ? AND status != 'rejected')"),
                arguments: [bucket]) ?? false
            var events: [BucketEvent] = []
            for entry in page.entries {
                if let event = try Self.takeIndexEntry(db, bucket, entry, walk: walk, checkPending: anyPending), observed {
                    events.append(event)
                }
            }
            if let mark = page.mark {
                try db.executeCached(sql: "UPDATE buckets SET walk_mark = ? WHERE name = ?", arguments: [mark, bucket])
                return events
            }
            events += try Self.finishWalk(db, bucket, walk: walk)
            return observed ? events : []
        }
        self.events.publish(events)
        outboxChanged.signal()
        return page.mark == nil
    }

    private static func takeIndexEntry(_ db: Database, _ bucket: String, _ entry: IndexEntry, walk: Int64, checkPending: Bool) throws -> BucketEvent? {
        let ghost = try LocalRecords.ghost(db, bucket, entry.key)
        if let ghost, ghost.version == entry.version, !ghost.isDeleted {
            try db.executeCached(sql: "UPDATE ghosts SET walk = ? WHERE bucket = ? AND key = ?", arguments: [walk, bucket, entry.key])
            return nil
        }
        let server = Ghost(version: entry.version, data: entry.data, isDeleted: false)
        return try resetObject(db, bucket, entry.key, from: ghost, to: server, walk: walk, checkPending: checkPending)
    }

    /// Makes `server` the ghost of `key` (in place of `oldGhost`) and rebuilds the local object
    /// from it plus the edits not yet acknowledged.
    static func resetObject(
        _ db: Database, _ bucket: String, _ key: String, from oldGhost: Ghost?, to server: Ghost, walk: Int64? = nil,
        checkPending: Bool = true
    ) throws -> BucketEvent? {
        try LocalRecords.setGhost(db, bucket, key, server, walk: walk)
        let old = try LocalRecords.local(db, bucket, key)
        var pending = checkPending ? try OutboxRow.all(db, bucket, key) : []
        if server.isDeleted {
            try OutboxRow.deleteAll(db, bucket, key)
            return try setLocal(db, bucket, key, from: old, to: .removed, origin: .remote)
        }
        // A change the server is known to have applied is part of `server` already.
        var appliedState = oldGhost?.data ?? [:]
        for row in pending where row.status == .accepted {
            appliedState = row.expected ?? appliedState
            try OutboxRow.delete(db, id: row.id)
        }
        pending.removeAll { $0.status == .accepted }
        guard !pending.isEmpty, case .present(let local) = old else {
            return try setLocal(db, bucket, key, from: old, to: pending.isEmpty ? .present(server.data) : old, origin: .remote)
        }
        let replayed = replay(local, after: appliedState, onto: server.data)
        return try setLocal(db, bucket, key, from: old, to: .present(replayed), origin: .remote)
    }

    /// The walk is over: its snapshot is the cursor, and what it did not see was removed.
    private static func finishWalk(_ db: Database, _ bucket: String, walk: Int64) throws -> [BucketEvent] {
        try db.executeCached(
            sql: "UPDATE buckets SET cv = walk_current, walk_current = NULL, walk_mark = NULL WHERE name = ?", arguments: [bucket])
        let gone = try String.fetchAll(
            db.cachedStatement(sql: "SELECT key FROM ghosts WHERE bucket = ? AND deleted = 0 AND walk NOT IN (?, -1)"),
            arguments: [bucket, walk])
        var events: [BucketEvent] = []
        for key in gone {
            let ghost = try LocalRecords.ghost(db, bucket, key)
            let removed = Ghost(version: ghost?.version ?? 0, data: [:], isDeleted: true)
            if let event = try resetObject(db, bucket, key, from: ghost, to: removed) { events.append(event) }
        }
        return events
    }

    /// Takes in an object fetched whole from the server (`nil`: it is gone) after its ghost fell
    /// out of step.
    func takeFetched(bucket: String, key: String, version: Int?, data: JSONObject?) async throws {
        try await write { db in
            let ghost = try LocalRecords.ghost(db, bucket, key)
            let server: Ghost
            if let version, let data {
                if let ghost, ghost.version > version { return [] }
                server = Ghost(version: version, data: data, isDeleted: false)
            } else {
                server = Ghost(version: ghost?.version ?? 0, data: [:], isDeleted: true)
            }
            return try Self.resetObject(db, bucket, key, from: ghost, to: server).map { [$0] } ?? []
        }
        outboxChanged.signal()
    }
}

extension Replica {
    /// Keeps the bucket options the server sent (`o:{…}`), for the app to read.
    func setOptions(bucket: String, _ json: String) async throws {
        try await database.write { db in
            try db.executeCached(sql: "UPDATE buckets SET options = ? WHERE name = ?", arguments: [json, bucket])
        }
    }
}
