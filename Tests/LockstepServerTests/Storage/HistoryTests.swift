import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Versions are kept compactly (a snapshot every few versions, a diff for each) and by age,
/// on each store.
@Suite("History (SQLite and PostgreSQL)")
struct HistoryTests {
    @Test(arguments: StoreKind.allCases)
    func everyVersionIsRebuiltFromSnapshotsAndChanges(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            var writer = StoreWriter(store: store, scope: BucketScope(appID: try await insertTestApp(store), owner: .user("u1"), bucket: "notes"))
            writer.limits.snapshotInterval = 4
            var expected: [JSONObject] = []
            for version in 1...23 {
                var data: JSONObject = ["title": .string("note \(version / 3)"), "count": .integer(Int64(version))]
                if version.isMultiple(of: 5) { data["extra"] = ["v": .integer(Int64(version))] }
                expected.append(data)
                try await writer.commit("doc", data)
            }
            for version in 1...23 {
                #expect(try await store.objectData(writer.scope, key: "doc", version: version) == expected[version - 1], "version \(version)")
            }
            #expect(try await store.objectData(writer.scope, key: "doc", version: 24) == nil)
            #expect(try await store.objectData(writer.scope, key: "doc", version: 0) == nil)
            try StoreWriter.committed(try await writer.remove("doc"))
            #expect(try await store.objectData(writer.scope, key: "doc", version: 24) == nil)
            #expect(try await store.objectData(writer.scope, key: "doc", version: 23) == expected[22])
        }
    }

    /// Versions younger than the age are kept, and at least the latest few; older ones go,
    /// back to a snapshot; a cursor from before what went must index again.
    @Test(arguments: StoreKind.allCases)
    func pruningKeepsYoungVersionsAndTheLatestOnes(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            var writer = StoreWriter(store: store, scope: BucketScope(appID: try await insertTestApp(store), owner: .user("u1"), bucket: "notes"))
            writer.limits.snapshotInterval = 4
            let epoch = try await store.currentVersion(of: writer.scope).epoch
            // Versions 1…20 at times 1…20 (seconds); "other" at time 20.
            for version in 1...20 {
                writer.time = Int64(version) * 1_000_000_000
                try await writer.commit("doc", ["v": .integer(Int64(version))])
            }
            try await writer.commit("other", ["v": 1])
            let cursorBefore = ChangeVersion(epoch: epoch, sequence: 5)

            // Keep what committed at 14 s or later, and at least 3 versions: oldest kept is 14,
            // so history goes back to the snapshot at 12.
            let policy = HistoryPolicy(keepSince: 14_000_000_000, keepLatest: 3, keepAtMost: 1000)
            let pass = try await store.pruneHistory(after: nil, limit: 100, policy: policy)
            #expect(pass.examined == 1 && pass.pruned == 1 && pass.next == nil)
            for version in 1...11 { #expect(try await store.objectData(writer.scope, key: "doc", version: version) == nil) }
            for version in 12...20 {
                #expect(try await store.objectData(writer.scope, key: "doc", version: version) == ["v": .integer(Int64(version))])
            }
            #expect(try await store.feed(writer.scope, after: cursorBefore, limit: 100) == nil)
            #expect(try await store.feed(writer.scope, after: ChangeVersion(epoch: epoch, sequence: 12), limit: 100)?.count == 9)
            // The change that made version 12 is kept: a device holding version 11 catches up.
            #expect(try await store.feed(writer.scope, after: ChangeVersion(epoch: epoch, sequence: 11), limit: 100)?.first?.endVersion == 12)
            #expect(try await store.feed(writer.scope, after: ChangeVersion(epoch: epoch, sequence: 10), limit: 100) == nil)
            // A second pass finds nothing more to do.
            #expect(try await store.pruneHistory(after: nil, limit: 100, policy: policy).pruned == 0)

            // The cap drops even young versions, oldest first.
            let capped = HistoryPolicy(keepSince: 0, keepLatest: 3, keepAtMost: 5)
            #expect(try await store.pruneHistory(after: nil, limit: 100, policy: capped).pruned == 1)
            #expect(try await store.objectData(writer.scope, key: "doc", version: 15) == nil)
            #expect(try await store.objectData(writer.scope, key: "doc", version: 16) == ["v": 16])
        }
    }

    /// A change against a version that was pruned is merged member by member, by the edit
    /// stamps, when it carries the whole object; without it, it is refused with 405.
    @Test(arguments: StoreKind.allCases)
    func aChangeAgainstAPrunedBaseMergesByMember(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            var writer = StoreWriter(store: store, scope: BucketScope(appID: try await insertTestApp(store), owner: .user("u1"), bucket: "notes"))
            writer.limits.snapshotInterval = 4
            try StoreWriter.committed(try await writer.group([writer.change("doc", ["title": "one", "body": "b", "n": 0], editTime: 1000)])[0])
            for version in 2...12 {
                try StoreWriter.committed(try await writer.group([writer.change(
                    "doc", ["title": "one", "body": "b", "n": .integer(Int64(version))], editTime: Int64(version) * 1000)])[0])
            }
            try await Self.pruneAllButTheLatestTwoVersions(store, of: writer.scope)

            // Offline since version 1: changed the title (later than anyone), and n (earlier than the last write of n).
            let late = IncomingChange(
                key: "doc", changeID: "late", clientID: "offline", operation: .modify(diff: nil, fullData: ["title": "two", "body": "b", "n": 99]),
                sourceVersion: 1, editTime: 5_500)
            let (merged, _) = try StoreWriter.committed(try await writer.group([late])[0])
            #expect(merged.mergedWithoutBase)
            #expect(try await store.object(writer.scope, key: "doc")?.data == ["title": "two", "body": "b", "n": 12])

            let textEdit = IncomingChange(
                key: "doc", changeID: "text", clientID: "offline",
                operation: .modify(diff: try ObjectDiff(json: try JSONValue(parsing: #"{"body":{"o":"d","v":"=1\t+c"}}"#)), fullData: nil),
                sourceVersion: 1, editTime: 9_000)
            let refused = try StoreWriter.rejection(try await writer.group([textEdit])[0])
            #expect(refused.reason == .badVersion && refused.message.contains("no longer retained"))
        }
    }

    /// A removal's stamp outlives the history that holds it: a set made offline before the
    /// removal, against a version pruned since, does not bring the member back; one made after
    /// it does.
    @Test(arguments: StoreKind.allCases)
    func aRemovalOutlivesItsPrunedHistory(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            var writer = StoreWriter(store: store, scope: BucketScope(appID: try await insertTestApp(store), owner: .user("u1"), bucket: "notes"))
            writer.limits.snapshotInterval = 4
            try StoreWriter.committed(try await writer.group([writer.change("doc", ["title": "one", "tag": "red", "n": 0], editTime: 1000)])[0])
            try StoreWriter.committed(try await writer.group([writer.change("doc", ["title": "one", "n": 0], editTime: 5000)])[0])
            for version in 3...12 {
                try StoreWriter.committed(try await writer.group([writer.change(
                    "doc", ["title": "one", "n": .integer(Int64(version))], editTime: Int64(version) * 1000 + 5000)])[0])
            }
            try await Self.pruneAllButTheLatestTwoVersions(store, of: writer.scope)

            // Offline since version 1: set the tag at 3 s, before its removal at 5 s.
            let before = IncomingChange(
                key: "doc", changeID: "before", clientID: "offline", operation: .modify(diff: nil, fullData: ["title": "one", "tag": "blue", "n": 0]),
                sourceVersion: 1, editTime: 3000)
            let refused = try StoreWriter.rejection(try await writer.group([before])[0])
            #expect(refused.reason == .emptyChange)
            #expect(try await store.object(writer.scope, key: "doc")?.data == ["title": "one", "n": 12])

            // The same set at 6 s, after the removal, lands.
            let after = IncomingChange(
                key: "doc", changeID: "after", clientID: "offline", operation: .modify(diff: nil, fullData: ["title": "one", "tag": "green", "n": 0]),
                sourceVersion: 1, editTime: 6000)
            let (merged, _) = try StoreWriter.committed(try await writer.group([after])[0])
            #expect(merged.mergedWithoutBase)
            #expect(try await store.object(writer.scope, key: "doc")?.data == ["title": "one", "tag": "green", "n": 12])
        }
    }

    /// Past ``Limits/removedMemberStampsPerObject`` the oldest removals are forgotten, and an
    /// older offline set can bring such a member back; the latest removals still hold.
    @Test(arguments: StoreKind.allCases)
    func onlyTheLatestRemovalsKeepTheirStamps(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            var writer = StoreWriter(store: store, scope: BucketScope(appID: try await insertTestApp(store), owner: .user("u1"), bucket: "notes"))
            writer.limits.removedMemberStampsPerObject = 1
            writer.limits.snapshotInterval = 4
            try StoreWriter.committed(try await writer.group([writer.change("doc", ["a": 1, "b": 1, "n": 0], editTime: 1000)])[0])
            try StoreWriter.committed(try await writer.group([writer.change("doc", ["b": 1, "n": 0], editTime: 4000)])[0])
            try StoreWriter.committed(try await writer.group([writer.change("doc", ["n": 0], editTime: 5000)])[0])
            for version in 4...12 {
                try StoreWriter.committed(try await writer.group([writer.change("doc", ["n": .integer(Int64(version))], editTime: 9000)])[0])
            }
            try await Self.pruneAllButTheLatestTwoVersions(store, of: writer.scope)
            #expect(try await store.object(writer.scope, key: "doc").map { Set($0.memberStamps.keys) } == ["b", "n"])

            let offline = IncomingChange(
                key: "doc", changeID: "offline", clientID: "offline", operation: .modify(diff: nil, fullData: ["a": 2, "b": 2, "n": 0]),
                sourceVersion: 1, editTime: 3000)
            try StoreWriter.committed(try await writer.group([offline])[0])
            #expect(try await store.object(writer.scope, key: "doc")?.data == ["a": 2, "n": 12])
        }
    }

    /// Prunes every object's history down to its latest two versions, whatever their age, so
    /// that `doc`'s first version is gone.
    static func pruneAllButTheLatestTwoVersions(_ store: any SyncStore, of scope: BucketScope) async throws {
        _ = try await store.pruneHistory(after: nil, limit: 100, policy: HistoryPolicy(keepSince: .max, keepLatest: 2, keepAtMost: 100))
        #expect(try await store.objectData(scope, key: "doc", version: 1) == nil)
    }
}
