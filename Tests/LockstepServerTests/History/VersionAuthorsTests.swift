import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// Every version a store keeps says who made it and when: the author's user id (and name), or
/// the admin token, or the server; the client id and `ccid`; the commit's server time, the edit
/// time the client sent, and, for a restore, what it put back.
@Suite("Version authors (SQLite and PostgreSQL)")
struct VersionAuthorsTests {
    @Test(arguments: StoreKind.allCases)
    func eachVersionKeepsItsAuthorAndCommitTime(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            try await store.insertUser(UserRecord(appID: app, id: "a1b2", username: "ann@example.com", passwordHash: nil, createdAt: 1))
            let scope = BucketScope(appID: app, owner: .shared, bucket: "notes")
            var writer = StoreWriter(store: store, scope: scope)
            writer.limits.snapshotInterval = 4
            let authors: [ChangeAuthor] = [.user("a1b2"), .admin, .trusted, .user("gone-user")]
            var expected: [VersionRecord] = []
            for version in 1...10 {
                writer.time = Int64(version) * 1_000_000_000
                writer.clientID = "device-\(version % 3)"
                let author = authors[version % authors.count]
                let data: JSONObject = ["n": .integer(Int64(version)), "text": .string(String(repeating: "x", count: version))]
                let change = writer.change("doc", data, changeID: "c\(version)", editTime: version.isMultiple(of: 2) ? Int64(version) * 7 : nil)
                let outcome = try await store.commit(ChangeGroup(
                    requests: [ChangeRequest(scope: scope, change: change, author: author, restoredFrom: version == 9 ? 3 : nil)],
                    time: writer.time, limits: writer.limits))[0]
                try StoreWriter.committed(outcome)
                expected.append(VersionRecord(
                    version: version, data: data, author: author, authorName: author == .user("a1b2") ? "ann@example.com" : nil,
                    clientID: writer.clientID, changeID: "c\(version)", committedAt: writer.time, editTime: change.editTime,
                    restoredFrom: version == 9 ? 3 : nil))
            }
            writer.time = 11_000_000_000
            try StoreWriter.committed(try await store.commit(ChangeGroup(
                requests: [ChangeRequest(scope: scope, change: writer.removal("doc", changeID: "bye"), author: .user("a1b2"))],
                time: writer.time, limits: writer.limits))[0])
            expected.append(VersionRecord(
                version: 11, data: nil, author: .user("a1b2"), authorName: "ann@example.com", clientID: writer.clientID, changeID: "bye",
                committedAt: writer.time))

            #expect(try await store.versions(scope, key: "doc", from: 1, through: 11) == expected)
            // Any range, rebuilt from the snapshot before it; clipped to what exists.
            #expect(try await store.versions(scope, key: "doc", from: 6, through: 9) == Array(expected[5...8]))
            #expect(try await store.versions(scope, key: "doc", from: 10, through: 50) == Array(expected[9...10]))
            #expect(try await store.versions(scope, key: "doc", from: 12, through: 50) == [])
            #expect(try await store.versions(scope, key: "missing", from: 1, through: 5) == [])
            // Another owner's object of the same name is not this one.
            #expect(try await store.versions(BucketScope(appID: app, owner: .user("a1b2"), bucket: "notes"), key: "doc", from: 1, through: 5) == [])

            // What the pruner no longer keeps is not listed; the rest still is, with its authors.
            let policy = HistoryPolicy(keepSince: .max, keepLatest: 3, keepAtMost: 10_000)
            _ = try await store.pruneHistory(after: nil, limit: 10, policy: policy)
            let kept = try await store.versions(scope, key: "doc", from: 1, through: 11)
            #expect(kept.first?.version == 8 && kept == Array(expected[7...10]), "\(kept.map(\.version))")
        }
    }
}
