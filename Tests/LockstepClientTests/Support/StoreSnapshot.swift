import Foundation
import GRDB
@testable import LockstepClient
import LockstepCore

/// What a client's store file holds of one bucket, read in one transaction through a
/// connection of the test's own (the client may be running, or killed mid-write).
struct StoreSnapshot: Equatable {
    struct Version: Equatable {
        var version: Int
        var data: JSONObject?
    }

    /// Where the change feed resumes.
    var cursor: String?
    /// The mark of an index walk under way.
    var walkMark: String?
    /// The last version of each object the server acknowledged (`data` nil: removed).
    var ghosts: [String: Version]
    /// What the app sees (`nil`: a tombstone).
    var objects: [String: JSONObject?]

    static func read(_ store: URL, bucket: String) throws -> StoreSnapshot {
        // A process just killed may take a moment to exit and let go of its locks.
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let database = try DatabaseQueue(path: store.appendingPathComponent(ClientDatabase.fileName).path, configuration: configuration)
        return try database.read { db in
            let position = try Row.fetchOne(db, sql: "SELECT cv, walk_mark FROM buckets WHERE name = ?", arguments: [bucket])
            var ghosts: [String: Version] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, version, data FROM ghosts WHERE bucket = ?", arguments: [bucket]) {
                ghosts[row["key"]] = Version(version: row["version"], data: try (row["data"] as String?).map(LocalRecords.decode))
            }
            var objects: [String: JSONObject?] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, data FROM objects WHERE bucket = ?", arguments: [bucket]) {
                objects[row["key"]] = .some(try (row["data"] as String?).map(LocalRecords.decode))
            }
            return StoreSnapshot(cursor: position?["cv"], walkMark: position?["walk_mark"], ghosts: ghosts, objects: objects)
        }
    }
}

/// A bucket's change feed as the server keeps it, and what it leads to.
struct Feed {
    var changes: [RemoteChange]

    /// The changes up to and including the one at `cursor` (change versions of one bucket sort
    /// as strings); all of them for `nil`.
    func through(_ cursor: String?) -> ArraySlice<RemoteChange> {
        guard let cursor else { return changes[...] }
        return changes.prefix { ($0.cursor ?? "") <= cursor }
    }

    /// The ghosts a client holds after exactly `changes`, starting from an empty bucket.
    static func ghosts(after changes: some Sequence<RemoteChange>) throws -> [String: StoreSnapshot.Version] {
        var ghosts: [String: StoreSnapshot.Version] = [:]
        for change in changes {
            let data: JSONObject? = change.operation == .remove
                ? nil : try change.diff.apply(to: ghosts[change.key]?.data ?? [:])
            ghosts[change.key] = StoreSnapshot.Version(version: change.endVersion, data: data)
        }
        return ghosts
    }
}

extension TestServer {
    /// Every change of `bucket` in feed order, as `GET /changes` lists them.
    func feed(_ bucket: String, token: String) async throws -> Feed {
        var changes: [RemoteChange] = []
        while true {
            let after = changes.last?.cursor.map { "&cv=\($0)" } ?? ""
            let (status, json) = try await request("GET", "\(bucket)/changes?limit=1000\(after)", token: token)
            guard status == 200, let json else { throw TestServerError.unexpected(status) }
            let page = try RemoteChange.list(json)
            changes += page
            // A short page is the end; asking again would wait for the long poll.
            if page.count < 1000 { return Feed(changes: changes) }
        }
    }
}
