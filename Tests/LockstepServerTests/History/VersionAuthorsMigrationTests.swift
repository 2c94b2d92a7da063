import Foundation
import GRDB
import LockstepCore
@testable import LockstepPostgres
@testable import LockstepServer
import PostgresNIO
import Testing

/// Versions written before authors were kept get what can be known of them: in a user's own
/// bucket, that user, unless the server or the console wrote them (their client ids); anywhere
/// else, an unknown author. Every version keeps its client id, ccid and commit time.
@Suite("Version authors: the migration (SQLite and PostgreSQL)")
struct VersionAuthorsMigrationTests {
    static let appID = "app-authors"

    /// Objects of one version each: where, written by which client, and the author expected.
    static let written: [(owner: String, key: String, client: String, author: ChangeAuthor?)] = [
        ("u1", "phone", "phone-1", .user("u1")),
        ("u1", "console", "console-5e1f", nil),
        ("u1", "presence", "lockstep-presence", nil),
        ("u1", "purchase", "lockstep-store", nil),
        ("", "shared", "phone-1", nil),
        ("space:sp1", "job", "phone-1", nil),
    ]

    @Test(arguments: StoreKind.allCases)
    func versionsFromBeforeGetWhatCanBeKnown(_ kind: StoreKind) async throws {
        try await Self.withOldStore(kind) { store in
            for (index, object) in Self.written.enumerated() {
                let scope = BucketScope(appID: Self.appID, ownerKey: object.owner, bucket: "notes")
                let versions = try await store.versions(scope, key: object.key, from: 1, through: 1)
                #expect(versions == [VersionRecord(
                    version: 1, data: ["n": .integer(Int64(index))], author: object.author, clientID: object.client, changeID: "old-\(index)",
                    committedAt: 1_000 + Int64(index), editTime: 7)], "\(object.owner)/\(object.key)")
            }
            // New versions record their author as any version does.
            let scope = BucketScope(appID: Self.appID, ownerKey: "", bucket: "notes")
            try StoreWriter.committed(try await store.commit(ChangeGroup(
                requests: [ChangeRequest(scope: scope, change: StoreWriter(store: store, scope: scope).change("shared", ["n": 99]), author: .admin)],
                time: 5_000, limits: Limits()))[0])
            #expect(try await store.versions(scope, key: "shared", from: 2, through: 2).map(\.author) == [.admin])
        }
    }

    /// A store of `kind` as the server before version authors left it, holding ``written``.
    static func withOldStore(_ kind: StoreKind, _ body: (any SyncStore) async throws -> Void) async throws {
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-authors-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("lockstep.sqlite").path
            let database = try DatabaseQueue(path: path)
            let migrations = SQLiteSchema.migrator.migrations
            let authors = try #require(migrations.firstIndex(of: "v10: version authors"))
            try SQLiteSchema.migrator.migrate(database, upTo: migrations[authors - 1])
            try await database.write { db in for statement in statements(postgres: false) { try db.execute(sql: statement) } }
            try database.close()
            try await body(try SQLiteStore(path: path))
        case .postgres:
            let authors = try #require(PostgresSchema.migrations.firstIndex { $0.contains { $0.sql.contains("ADD COLUMN author") } })
            try await TestStores.withPostgresStore(migratedThrough: authors, holding: statements(postgres: true)) { store in try await body(store) }
        }
    }

    static func statements(postgres: Bool) -> [String] {
        var rows = ["INSERT INTO apps (id, name, api_key_hash, admin_token_hash, created_at, last_sequence) VALUES ('\(appID)', 'old', 'k', 'a', 1, 0)"]
        for owner in Set(written.map(\.owner)) {
            rows.append("INSERT INTO buckets (app_id, owner, name, epoch, last_sequence) VALUES ('\(appID)', '\(owner)', 'notes', 7, 9)")
        }
        for (index, object) in written.enumerated() {
            let diff = StoredValueCoding.text(ObjectDiff(from: [:], to: ["n": .integer(Int64(index))]))!
            let bucketID = "(SELECT id FROM buckets WHERE app_id = '\(appID)' AND owner = '\(object.owner)' AND name = 'notes')"
            rows.append("""
                INSERT INTO changes (app_id, owner, bucket, sequence, key, operation, source_version, end_version, diff, client_id, change_id,
                                     edit_time, app_sequence, committed_at\(postgres ? ", bucket_id, origin" : ""))
                VALUES ('\(appID)', '\(object.owner)', 'notes', \(index + 1), '\(object.key)', 'M', NULL, 1, '\(diff)', '\(object.client)',
                        'old-\(index)', 7, \(index + 1), \(1_000 + index)\(postgres ? ", \(bucketID), 'old-node'" : ""))
                """)
            rows.append("""
                INSERT INTO objects (app_id, owner, bucket, key, version, data, deleted, member_stamps, sequence)
                VALUES ('\(appID)', '\(object.owner)', 'notes', '\(object.key)', 1, '{"n":\(index)}', \(postgres ? "FALSE" : "0"), '{}', \(index + 1))
                """)
        }
        return rows
    }
}
