import Foundation
import LockstepCore
@testable import LockstepPostgres
@testable import LockstepServer
import PostgresNIO
import Testing

/// A PostgreSQL database whose change feed was indexed by bucket names opens with its feed
/// indexed by bucket numbers: every change keeps its place in its feed, is found by its client
/// change id (so a resend is still a duplicate), and the feed goes on from where it stood, also
/// for changes whose bucket had no row.
@Suite("Change feed by bucket number: the PostgreSQL migration")
struct BucketNumberMigrationTests {
    @Test func everyChangeKeepsItsFeedAndItsChangeID() async throws {
        let appID = "app-numbers"
        let notes = BucketScope(appID: appID, owner: .user("u1"), bucket: "notes")
        // Its bucket row is missing: no server left such a feed, but the migration must not
        // leave its changes without a number.
        let lists = BucketScope(appID: appID, owner: .user("u2"), bucket: "lists")
        var statements = ["INSERT INTO apps (id, name, api_key_hash, admin_token_hash, created_at, last_sequence) VALUES ('\(appID)', 'old', 'k', 'a', 1, 6)"]
        var appSequence = 0
            for scope in [notes, lists] {
                for (index, key) in ["a", "b", "c"].enumerated() {
                    appSequence += 1
                    let diff = StoredValueCoding.text(ObjectDiff(from: [:], to: ["n": .integer(Int64(index))]))!
                    statements.append("""
                        INSERT INTO changes (app_id, owner, bucket, sequence, key, operation, source_version, end_version, diff,
                                             client_id, change_id, edit_time, app_sequence, origin)
                        VALUES ('\(appID)', '\(scope.ownerKey)', '\(scope.bucket)', \(index + 1), '\(key)', 'M', NULL, 1, '\(diff)',
                                'old-client', 'old-\(scope.bucket)-\(index + 1)', 1000, \(appSequence), 'old-node')
                        """)
                    statements.append("""
                        INSERT INTO objects (app_id, owner, bucket, key, version, data, deleted, member_stamps, sequence)
                        VALUES ('\(appID)', '\(scope.ownerKey)', '\(scope.bucket)', '\(key)', 1, '{"n":\(index)}', FALSE, '{}', \(index + 1))
                        """)
                }
            }
            statements.append("INSERT INTO buckets (app_id, owner, name, epoch, last_sequence) VALUES ('\(appID)', '\(notes.ownerKey)', 'notes', 7, 3)")

            // Migration 10 numbered the buckets.
            try await TestStores.withPostgresStore(migratedThrough: 9, holding: statements) { store in
            for scope in [notes, lists] {
                let epoch = try await store.currentVersion(of: scope).epoch
                let feed = try #require(try await store.feed(scope, after: ChangeVersion(epoch: epoch, sequence: 0), limit: 100))
                #expect(feed.map(\.sequence) == [1, 2, 3], "\(scope.bucket)")
                #expect(feed.map(\.key) == ["a", "b", "c"], "\(scope.bucket)")
                #expect(try await store.change(scope, changeID: "old-\(scope.bucket)-2")?.key == "b", "\(scope.bucket)")

                let writer = StoreWriter(store: store, scope: scope)
                let resent = try await writer.group([writer.change("a", ["n": 9], changeID: "old-\(scope.bucket)-1")])[0]
                guard case .rejected(let rejection) = resent else {
                    Issue.record("a resent change of \(scope.bucket) was applied again: \(resent)")
                    continue
                }
                #expect(rejection.reason == .duplicate)
                let (change, _) = try StoreWriter.committed(try await writer.put("d", ["n": 3]))
                #expect(change.sequence == 4, "\(scope.bucket): the feed goes on where it stood")
                #expect(try await store.feed(scope, after: ChangeVersion(epoch: epoch, sequence: 3), limit: 100)?.map(\.key) == ["d"])
            }
        }
    }
}
