import Foundation
import GRDB
import LockstepCore
@testable import LockstepPostgres
@testable import LockstepServer
import PostgresNIO
import Testing

/// A database as servers before compact history left it (every change kept with its diff,
/// full copies of only the last 60 versions) opens on today's layout with every version
/// readable, its change feed whole, and the object writable and prunable from where it stood.
@Suite("History migration (SQLite and PostgreSQL)")
struct HistoryMigrationTests {
    @Test(arguments: StoreKind.allCases)
    func everyVersionWrittenBeforeCompactHistoryStaysReadable(_ kind: StoreKind) async throws {
        let old = OldLayoutHistory(appID: "app-old", owner: "u1", bucket: "notes", originNode: kind == .postgres ? "old-node" : nil)
        try await Self.withOldLayoutStore(kind, statements: old.statements) { store in
            let scope = BucketScope(appID: old.appID, owner: .user(old.owner), bucket: old.bucket)
            for (index, data) in old.versions.enumerated() {
                #expect(try await store.objectData(scope, key: "doc", version: index + 1) == data, "version \(index + 1)")
            }
            #expect(try await store.object(scope, key: "doc")?.version == old.versions.count)
            #expect(try await store.object(scope, key: "gone")?.isDeleted == true)

            // The feed still holds every change, from the start, in order.
            let epoch = try await store.currentVersion(of: scope).epoch
            let feed = try #require(try await store.feed(scope, after: ChangeVersion(epoch: epoch, sequence: 0), limit: 1000))
            #expect(feed.map(\.sequence) == Array(1...Int64(old.changeCount)))
            #expect(feed.filter { $0.key == "doc" }.map(\.endVersion) == Array(1...old.versions.count))

            // A change against a version only the old changes can rebuild (no copy of it was
            // kept) merges as any retained base does.
            var writer = StoreWriter(store: store, scope: scope)
            writer.limits.snapshotInterval = 8
            var edit = old.versions[4]
            edit["title"] = "renamed offline"
            let (change, _) = try StoreWriter.committed(try await writer.put("doc", edit, source: 5))
            var expected = old.versions.last!
            expected["title"] = "renamed offline"
            #expect(change.endVersion == old.versions.count + 1)
            #expect(try await store.object(scope, key: "doc")?.data == expected)

            // Pruned like any history: what the policy keeps stays readable.
            let policy = HistoryPolicy(keepSince: .max, keepLatest: 20, keepAtMost: 10_000)
            _ = try await store.pruneHistory(after: nil, limit: 100, policy: policy)
            let latest = old.versions.count + 1
            for version in (latest - 19)...latest {
                #expect(try await store.objectData(scope, key: "doc", version: version) != nil, "version \(version) after pruning")
            }
            #expect(try await store.objectData(scope, key: "doc", version: 1) == nil)
        }
    }

    /// Runs `statements` on a fresh database of `kind` migrated only as far as servers before
    /// compact history did, then opens it as a store (which migrates the rest).
    static func withOldLayoutStore(_ kind: StoreKind, statements: [String], _ body: (any SyncStore) async throws -> Void) async throws {
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-migration-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("lockstep.sqlite").path
            let database = try DatabaseQueue(path: path)
            try SQLiteSchema.migrator.migrate(database, upTo: "v3: peer secrets")
            try await database.write { db in for statement in statements { try db.execute(sql: statement) } }
            try database.close()
            try await body(try SQLiteStore(path: path))
        case .postgres:
            try await TestStores.withPostgresStore(migratedThrough: 3, holding: statements) { store in try await body(store) }
        }
    }
}

/// The rows an older server wrote for 70 versions of one object and a removed one: each change
/// with its diff from the version before (a creation's from the empty object), the object's
/// latest state, and full copies of its last 60 versions only.
struct OldLayoutHistory {
    let appID: String
    let owner: String
    let bucket: String
    let versions: [JSONObject]
    let statements: [String]
    let changeCount: Int

    /// `originNode`: PostgreSQL's changes name the node that made them (SQLite's have no such
    /// column); in nothing else do the two stores' rows differ.
    init(appID: String, owner: String, bucket: String, originNode: String?) {
        self.appID = appID
        self.owner = owner
        self.bucket = bucket
        var versions: [JSONObject] = []
        var data: JSONObject = ["title": "groceries", "text": "milk", "count": 0]
        for version in 1...70 {
            if version > 1 {
                data["count"] = .integer(Int64(version))
                if version.isMultiple(of: 3) { data["text"] = .string((data["text"]?.stringValue ?? "") + " item\(version)") }
                if version.isMultiple(of: 10) { data["tags"] = .array([.string("t\(version)")]) }
            }
            versions.append(data)
        }
        self.versions = versions

        var rows: [String] = []
        rows.append("""
            INSERT INTO apps (id, name, api_key_hash, admin_token_hash, created_at, last_sequence)
            VALUES (\(Self.literal(appID)), 'old', 'k', 'a', 1, 0)
            """)
        var sequence = 0
        func change(_ key: String, operation: String, source: Int?, end: Int, diff: ObjectDiff?) {
            sequence += 1
            rows.append("""
                INSERT INTO changes (app_id, owner, bucket, sequence, key, operation, source_version, end_version, diff,
                                     client_id, change_id, edit_time, app_sequence\(originNode == nil ? "" : ", origin"))
                VALUES (\(Self.literal(appID)), \(Self.literal(owner)), \(Self.literal(bucket)), \(sequence), \(Self.literal(key)),
                        \(Self.literal(operation)), \(source.map(String.init) ?? "NULL"), \(end),
                        \(diff.map { Self.literal(StoredValueCoding.text($0)!) } ?? "NULL"), 'old-client', 'ccid-\(sequence)',
                        \(sequence * 1000), \(sequence)\(originNode.map { ", " + Self.literal($0) } ?? ""))
                """)
        }
        var previous: JSONObject = [:]
        for (index, data) in versions.enumerated() {
            change("doc", operation: "M", source: index == 0 ? nil : index, end: index + 1, diff: ObjectDiff(from: previous, to: data))
            previous = data
        }
        change("gone", operation: "M", source: nil, end: 1, diff: ObjectDiff(from: [:], to: ["x": 1]))
        change("gone", operation: "-", source: 1, end: 2, diff: nil)
        changeCount = sequence

        rows.append("""
            INSERT INTO buckets (app_id, owner, name, epoch, last_sequence)
            VALUES (\(Self.literal(appID)), \(Self.literal(owner)), \(Self.literal(bucket)), 7, \(sequence))
            """)
        rows.append("UPDATE apps SET last_sequence = \(sequence)")
        let stamps = StoredValueCoding.text(["count": EditStamp(time: 70_000, clientID: "old-client")])
        rows.append("""
            INSERT INTO objects (app_id, owner, bucket, key, version, data, deleted, member_stamps, sequence)
            VALUES (\(Self.literal(appID)), \(Self.literal(owner)), \(Self.literal(bucket)), 'doc', 70,
                    \(Self.literal(StoredValueCoding.text(versions[69]))), FALSE, \(Self.literal(stamps)), 70),
                   (\(Self.literal(appID)), \(Self.literal(owner)), \(Self.literal(bucket)), 'gone', 2, '{}', TRUE, '{}', 72)
            """)
        for version in 11...70 {
            rows.append("""
                INSERT INTO versions (app_id, owner, bucket, key, version, data)
                VALUES (\(Self.literal(appID)), \(Self.literal(owner)), \(Self.literal(bucket)), 'doc', \(version),
                        \(Self.literal(StoredValueCoding.text(versions[version - 1]))))
                """)
        }
        statements = rows
    }

    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
