import LockstepCore
import LockstepServer
import Testing

/// A bucket's feed and an app's commit order hand out each position once: a client whose
/// cursor stands at a position must never be told that a later change stands there too.
@Suite("Store: feed positions")
struct FeedPositionTests {
    /// Not after history is pruned down to an object's latest change, not after the space that
    /// held the app's latest changes is deleted, and not after the store is opened again (the
    /// SQLite store reads positions from the changes, not from rows each commit rewrites).
    @Test(arguments: StoreKind.allCases)
    func positionsAreNeverHandedOutTwice(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            try await store.insertSpace(SpaceRecord(appID: app, id: "s1", name: "job-1", createdAt: 1), ownerID: nil)
            var notes = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("u1"), bucket: "notes"))
            notes.limits.snapshotInterval = 1
            let shared = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .space("s1"), bucket: "notes"))
            for version in 1...3 { try await notes.commit("doc", ["v": .integer(Int64(version))]) }
            try await shared.commit("a", ["v": 1])
            try await shared.commit("b", ["v": 1])
            let pruned = try await store.pruneHistory(after: nil, limit: 100, policy: HistoryPolicy(keepSince: .max, keepLatest: 1, keepAtMost: 1))
            #expect(pruned.pruned == 1, "versions 1 and 2 of doc go; its latest change stays")
            _ = try await store.deleteSpace(appID: app, spaceID: "s1")
            #expect(try await store.appFeed(appID: app, bucket: "notes", after: 0, limit: 10).map(\.appSequence) == [3])

            try await TestStores.reopening(kind, store) { reopened in
                let epoch = try await reopened.currentVersion(of: notes.scope).epoch
                #expect(try await reopened.currentVersion(of: notes.scope) == ChangeVersion(epoch: epoch, sequence: 3))
                let (_, version) = try await StoreWriter(store: reopened, scope: notes.scope).commit("doc", ["v": 4])
                #expect(version == ChangeVersion(epoch: epoch, sequence: 4), "the bucket's feed goes on after its latest change")
                let feed = try await reopened.appFeed(appID: app, bucket: "notes", after: 0, limit: 10)
                #expect(
                    feed.map(\.appSequence) == [3, 6],
                    "the app's order goes on after the deleted space's changes (4 and 5), not from what is left")
            }
        }
    }
}
