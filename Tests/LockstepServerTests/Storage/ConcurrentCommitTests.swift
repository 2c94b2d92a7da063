import LockstepCore
import LockstepServer
import Testing

/// A store that commits groups on disjoint buckets at once (``SyncStore/concurrentCommits``)
/// still gives each app one commit order: each group takes a run of it, after the group that
/// committed before it, and a group sharing a bucket with another waits for it.
@Suite("Store: groups committed at once")
struct ConcurrentCommitTests {
    @Test(arguments: StoreKind.allCases)
    func groupsCommittedAtOnceTakeRunsOfTheAppsOrderOneAfterTheOther(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            let owners = (0..<6).map { "u\($0)" }
            func group(_ name: String, owners: ArraySlice<String>, round: Int) -> ChangeGroup {
                let requests = owners.flatMap { owner in
                    let writer = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user(owner), bucket: "notes"))
                    return (0..<4).map { index in
                        ChangeRequest(scope: writer.scope, change: writer.change(
                            "k\(index)", ["round": .integer(Int64(round)), "group": .string(name)], changeID: "\(name)-\(round)-\(owner)-\(index)"))
                    }
                }
                return ChangeGroup(requests: requests, time: 1_000_000, limits: Limits())
            }

            let rounds = 12
            for round in 0..<rounds {
                // Two groups on disjoint buckets, and a third sharing a bucket with the first.
                async let first = store.commit(group("a", owners: owners[0..<3], round: round))
                async let second = store.commit(group("b", owners: owners[3..<6], round: round))
                async let third = store.commit(group("c", owners: owners[2..<4], round: round))
                for outcome in try await [first, second, third].joined() { try StoreWriter.committed(outcome) }
            }

            let feed = try await store.appFeed(appID: app, bucket: "notes", after: 0, limit: 10_000)
            let changeCount = rounds * (3 + 3 + 2) * 4
            #expect(feed.map(\.appSequence) == Array(1...Int64(changeCount)), "every position once, none skipped")

            // Each group's changes hold one run of the app's order: no group's run is split.
            let groupsInOrder = feed.map { $0.change.changeID.split(separator: "-").prefix(2).joined(separator: "-") }
            var runs: [String] = []
            for name in groupsInOrder where runs.last != name { runs.append(name) }
            #expect(runs.count == rounds * 3, "runs of the app's order, one per group: \(runs)")

            // Each bucket's changes stand in the app's order as in the bucket's own feed.
            for owner in owners {
                let sequences = feed.filter { $0.ownerKey == BucketScope.Owner.user(owner).key }.map(\.change.sequence)
                #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count, "\(owner)")
                let rewrites = rounds * (owner == "u2" || owner == "u3" ? 2 : 1) * 4
                #expect(sequences.count == rewrites, "\(owner)")
            }
        }
    }
}
