import GRDB
import LockstepCore

/// What the app sees of one object: nothing yet, its data, or a tombstone.
enum LocalState: Equatable {
    case absent
    case present(JSONObject)
    case removed

    var data: JSONObject? {
        if case .present(let data) = self { return data }
        return nil
    }
}

/// The last version of an object the server acknowledged.
struct Ghost: Equatable {
    var version: Int
    var data: JSONObject
    var isDeleted: Bool
}

/// Reads and writes the rows behind objects, ghosts and bucket cursors, inside a transaction
/// the caller holds.
enum LocalRecords {
    static func local(_ db: Database, _ bucket: String, _ key: String) throws -> LocalState {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT data, deleted FROM objects WHERE bucket = ? AND key = ?"), arguments: [bucket, key])
        else { return .absent }
        if row["deleted"] as Bool { return .removed }
        return .present(try decode(row["data"]))
    }

    static func setLocal(_ db: Database, _ bucket: String, _ key: String, _ state: LocalState) throws {
        switch state {
        case .absent:
            try db.executeCached(sql: "DELETE FROM objects WHERE bucket = ? AND key = ?", arguments: [bucket, key])
        case .present(let data):
            try db.executeCached(
                sql: "INSERT OR REPLACE INTO objects (bucket, key, data, deleted) VALUES (?, ?, ?, 0)",
                arguments: [bucket, key, encode(data)])
        case .removed:
            try db.executeCached(
                sql: "INSERT OR REPLACE INTO objects (bucket, key, data, deleted) VALUES (?, ?, NULL, 1)",
                arguments: [bucket, key])
        }
    }

    static func ghost(_ db: Database, _ bucket: String, _ key: String) throws -> Ghost? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT version, data, deleted FROM ghosts WHERE bucket = ? AND key = ?"), arguments: [bucket, key])
        else { return nil }
        let text: String? = row["data"]
        return Ghost(version: row["version"], data: try text.map(decode) ?? [:], isDeleted: row["deleted"])
    }

    /// Writes a ghost. `walk` is the index walk that saw this version; a version that came
    /// from the change feed is marked -1 (seen live), which keeps it through the walk under way.
    static func setGhost(_ db: Database, _ bucket: String, _ key: String, _ ghost: Ghost, walk: Int64? = nil) throws {
        try db.executeCached(
            sql: """
                INSERT INTO ghosts (bucket, key, version, data, deleted, walk) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (bucket, key) DO UPDATE SET version = excluded.version, data = excluded.data,
                    deleted = excluded.deleted, walk = excluded.walk
                """,
            arguments: [bucket, key, ghost.version, ghost.isDeleted ? nil : encode(ghost.data), ghost.isDeleted, walk ?? -1])
    }

    static func cursor(_ db: Database, _ bucket: String) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT cv FROM buckets WHERE name = ?"), arguments: [bucket])
    }

    static func setCursor(_ db: Database, _ bucket: String, _ cv: String) throws {
        try db.executeCached(sql: "UPDATE buckets SET cv = ? WHERE name = ?", arguments: [cv, bucket])
    }

    static func encode(_ object: JSONObject) -> String {
        JSONSerializer().string(.object(object))
    }

    static func decode(_ text: String) throws -> JSONObject {
        guard case .object(let members) = try JSONValue(parsing: text) else { throw LockstepClientError.corruptStore(text) }
        return members
    }
}
