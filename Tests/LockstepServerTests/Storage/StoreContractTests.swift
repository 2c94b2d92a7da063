import Foundation
import LockstepCore
import LockstepServer
import Testing

/// What every ``SyncStore`` must do, run against each store: a real SQLite file and a real
/// PostgreSQL database, each fresh for each test.
@Suite("Store contract (SQLite and PostgreSQL)")
struct StoreContractTests {
    @Test(arguments: StoreKind.allCases)
    func appsUsersAndTokens(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let second = try await insertTestApp(store, id: "b-app", createdAt: 5)
            let first = try await insertTestApp(store, id: "a-app", createdAt: 5)
            let earliest = try await insertTestApp(store, id: "z-app", createdAt: 1)
            #expect(try await store.apps().map(\.id) == [earliest, first, second])
            #expect(try await store.app(id: first) == AppRecord(id: first, name: "test", apiKeyHash: "k-a-app", adminTokenHash: "a-a-app", createdAt: 5))
            #expect(try await store.app(id: "nope") == nil)
            await #expect(throws: StoreError.duplicate("app a-app")) { try await insertTestApp(store, id: first) }

            let alice = UserRecord(appID: first, id: "u1", username: "alice@example.com", passwordHash: "scrypt$x", createdAt: 7)
            try await store.insertUser(alice)
            await #expect(throws: StoreError.duplicate("user alice@example.com")) {
                try await store.insertUser(UserRecord(appID: first, id: "u2", username: "alice@example.com", passwordHash: nil, createdAt: 8))
            }
            let elsewhere = UserRecord(appID: second, id: "u1", username: "alice@example.com", passwordHash: nil, createdAt: 9)
            try await store.insertUser(elsewhere)
            #expect(try await store.user(appID: first, username: "alice@example.com") == alice)
            #expect(try await store.user(appID: first, id: "u1") == alice)
            #expect(try await store.user(appID: second, id: "u1") == elsewhere)
            #expect(try await store.user(appID: first, id: "u2") == nil)

            let lasting = TokenRecord(tokenHash: "h1", appID: first, userID: "u1", createdAt: 10, expiresAt: nil)
            let expiring = TokenRecord(tokenHash: "h2", appID: first, userID: "u1", createdAt: 11, expiresAt: 99)
            try await store.insertToken(lasting)
            try await store.insertToken(expiring)
            #expect(try await store.token(hash: "h1") == lasting)
            #expect(try await store.token(hash: "h2") == expiring)
            #expect(try await store.token(hash: "h3") == nil)
        }
    }

    /// Servers that start together on a new database (two instances of the systemd unit on
    /// PostgreSQL) each ask for the default app: one is made, and every other asker is told so.
    @Test(arguments: StoreKind.allCases)
    func theFirstAppIsMadeOnceHoweverManyAskAtOnce(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await TestStores.reopening(kind, store) { other in
                // SQLite's store is one server's alone (it locks its data directory): only
                // PostgreSQL's has another node asking.
                let askers = kind == .postgres ? [store, other] : [store]
                let made = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for attempt in 0..<8 {
                        let asker = askers[attempt % askers.count]
                        group.addTask {
                            try await asker.insertFirstApp(AppRecord(
                                id: "default-\(attempt)", name: "default", apiKeyHash: "k\(attempt)", adminTokenHash: "a\(attempt)", createdAt: 1))
                        }
                    }
                    return try await group.reduce(into: 0) { made, didMake in made += didMake ? 1 : 0 }
                }
                #expect(made == 1)
                #expect(try await store.apps().count == 1)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func bucketOptions(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            #expect(try await store.bucketOptions(appID: app, bucket: "catalog") == nil)
            try await store.setBucketOptions(appID: app, bucket: "catalog", options: ["shared": true, "readonly": true])
            try await store.setBucketOptions(appID: app, bucket: "notes", options: ["presence": "user"])
            #expect(try await store.bucketOptions(appID: app, bucket: "catalog") == ["shared": true, "readonly": true])
            try await store.setBucketOptions(appID: app, bucket: "catalog", options: ["shared": false])
            #expect(try await store.bucketOptions(appID: app, bucket: "catalog") == ["shared": false])
            #expect(try await store.bucketOptions(appID: app, bucket: "notes") == ["presence": "user"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func commitsRecordChangesAndRefuseRepeats(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let scope = BucketScope(appID: try await insertTestApp(store), owner: .user("u1"), bucket: "notes")
            let empty = try await store.currentVersion(of: scope)
            #expect(empty.sequence == 0)
            #expect(try await store.currentVersion(of: scope) == empty)
            let writer = StoreWriter(store: store, scope: scope)

            let (created, createdAt) = try StoreWriter.committed(try await writer.put("n1", ["title": "milk", "n": 1], changeID: "c1"))
            #expect(createdAt == ChangeVersion(epoch: empty.epoch, sequence: 1))
            #expect(created.sequence == 1 && created.endVersion == 1 && created.sourceVersion == nil)
            let object = try #require(try await store.object(scope, key: "n1"))
            #expect(object == StoredObject(
                key: "n1", version: 1, data: ["title": "milk", "n": 1], isDeleted: false,
                memberStamps: ["title": EditStamp(time: 1_000_000, clientID: "client-a"), "n": EditStamp(time: 1_000_000, clientID: "client-a")],
                sequence: 1))

            // A version the object never had cannot be a base.
            #expect(try StoreWriter.rejection(try await writer.put("n1", ["title": "eggs"], source: 5)).reason == .badVersion)
            // A change id seen before gets the change it was accepted as, and changes nothing.
            let repeated = try StoreWriter.rejection(try await writer.put("n1", ["title": "bread"], changeID: "c1"))
            #expect(repeated.reason == .duplicate && repeated.original == created)
            #expect(try await store.object(scope, key: "n1")?.version == 1)
            #expect(try await store.currentVersion(of: scope).sequence == 1)

            let (second, _) = try StoreWriter.committed(try await writer.put("n1", ["title": "eggs"], changeID: "c2"))
            #expect(second.sequence == 2 && second.sourceVersion == 1 && second.endVersion == 2)
            #expect(second.diff == ObjectDiff(from: ["title": "milk", "n": 1], to: ["title": "eggs"]))
            let (removal, _) = try StoreWriter.committed(try await writer.remove("n1", changeID: "c3"))
            #expect(removal.operation == .remove && removal.diff == nil && removal.editTime == nil)
            #expect(try await store.object(scope, key: "n1")?.isDeleted == true)
            #expect(try StoreWriter.rejection(try await writer.put("n1", ["title": "back"])).reason == .removed)

            #expect(try await store.change(scope, changeID: "c2") == second)
            #expect(try await store.change(scope, changeID: "c9") == nil)
            #expect(try await store.feed(scope, after: empty, limit: 10) == [created, second, removal])
            #expect(try await store.currentVersion(of: scope) == ChangeVersion(epoch: empty.epoch, sequence: 3))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func feedFollowsACursor(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let scope = BucketScope(appID: try await insertTestApp(store), owner: .shared, bucket: "feed")
            let writer = StoreWriter(store: store, scope: scope)
            var records: [ChangeRecord] = []
            for index in 0..<5 { records.append(try await writer.commit("k\(index % 3)", ["i": .integer(Int64(index))]).0) }
            let epoch = try await store.currentVersion(of: scope).epoch

            #expect(try await store.feed(scope, after: ChangeVersion(epoch: epoch, sequence: 0), limit: 100) == records)
            #expect(try await store.feed(scope, after: ChangeVersion(epoch: epoch, sequence: 2), limit: 2) == Array(records[2..<4]))
            #expect(try await store.feed(scope, after: ChangeVersion(epoch: epoch, sequence: 5), limit: 100) == [])
            // A cursor from another epoch, or from the future, is unknown: the client must index again.
            #expect(try await store.feed(scope, after: ChangeVersion(epoch: epoch &+ 1, sequence: 0), limit: 100) == nil)
            #expect(try await store.feed(scope, after: ChangeVersion(epoch: epoch, sequence: 6), limit: 100) == nil)
            let unseen = BucketScope(appID: scope.appID, owner: .shared, bucket: "never-written")
            #expect(try await store.feed(unseen, after: ChangeVersion(epoch: epoch, sequence: 0), limit: 100) == nil)
        }
    }

    /// Every object that existed when a walk began is on exactly one page, newest change
    /// first, at its version as of then, whatever changes between the pages.
    @Test(arguments: StoreKind.allCases)
    func indexPagesKeepTheirSnapshot(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let scope = BucketScope(appID: try await insertTestApp(store), owner: .user("u1"), bucket: "items")
            let writer = StoreWriter(store: store, scope: scope)
            for key in ["a", "b", "c", "d", "e"] { try await writer.commit(key, ["name": .string(key)]) }  // sequences 1…5
            try StoreWriter.committed(try await writer.remove("b"))  // 6

            let first = try await store.index(scope, IndexQuery(limit: 2, includeData: true))
            #expect(first.current.sequence == 6)
            #expect(first.entries == [
                IndexPage.Entry(key: "e", version: 1, data: ["name": "e"]), IndexPage.Entry(key: "d", version: 1, data: ["name": "d"]),
            ])
            #expect(first.nextBefore == 4)

            // Changes during the walk move nothing between pages: "a", changed, keeps its place
            // and its version as of the snapshot; "d" (changed) and "e" (removed) were listed
            // already and are not again; "f", created since, is not listed.
            try await writer.commit("a", ["name": "A"])  // 7
            try await writer.commit("d", ["name": "D"])  // 8
            try StoreWriter.committed(try await writer.remove("e"))  // 9
            try await writer.commit("f", ["name": "f"])  // 10
            for includeData in [true, false] {
                let second = try await store.index(scope, IndexQuery(snapshot: 6, before: 4, limit: 2, includeData: includeData))
                #expect(second.entries == [
                    IndexPage.Entry(key: "c", version: 1, data: includeData ? ["name": "c"] : nil),
                    IndexPage.Entry(key: "a", version: 1, data: includeData ? ["name": "a"] : nil),
                ])
                #expect(second.current.sequence == 10)
                #expect(second.nextBefore == nil)
            }

            let fresh = try await store.index(scope, IndexQuery(limit: 10, includeData: false))
            #expect(fresh.entries == [
                IndexPage.Entry(key: "f", version: 1, data: nil), IndexPage.Entry(key: "d", version: 2, data: nil),
                IndexPage.Entry(key: "a", version: 2, data: nil), IndexPage.Entry(key: "c", version: 1, data: nil),
            ])
            let since = try await store.index(scope, IndexQuery(changedAfter: 7, limit: 10, includeData: true))
            #expect(since.entries == [IndexPage.Entry(key: "f", version: 1, data: ["name": "f"]), IndexPage.Entry(key: "d", version: 2, data: ["name": "D"])])
            let exact = try await store.index(scope, IndexQuery(limit: 4, includeData: false))
            #expect(exact.entries.count == 4 && exact.nextBefore == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func appFeedListsEveryOwnerInCommitOrder(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            let alice = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("alice"), bucket: "notes"))
            let bob = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("bob"), bucket: "notes"))
            let shared = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .shared, bucket: "notes"))
            let other = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("alice"), bucket: "other"))
            let a1 = try await alice.commit("x", ["n": 1]).0
            try await other.commit("y", ["n": 2])
            let b1 = try await bob.commit("x", ["n": 3]).0
            let s1 = try await shared.commit("z", ["n": 4]).0
            let a2 = try await alice.commit("x", ["n": 5]).0

            let all = try await store.appFeed(appID: app, bucket: "notes", after: 0, limit: 100)
            #expect(all.map(\.ownerKey) == ["alice", "bob", "", "alice"])
            #expect(all.map(\.change) == [a1, b1, s1, a2])
            #expect(all.map(\.appSequence) == [1, 3, 4, 5])
            #expect(try await store.appFeed(appID: app, bucket: "notes", after: 3, limit: 1).map(\.change) == [s1])
            #expect(try await store.appFeed(appID: app, bucket: "notes", after: 5, limit: 100).isEmpty)
            #expect(try await store.appFeed(appID: "another-app", bucket: "notes", after: 0, limit: 100).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func ownersNeverSeeEachOthersData(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            let aliceScope = BucketScope(appID: app, owner: .user("alice"), bucket: "notes")
            let bobScope = BucketScope(appID: app, owner: .user("bob"), bucket: "notes")
            let sharedScope = BucketScope(appID: app, owner: .shared, bucket: "notes")
            let otherAppScope = BucketScope(appID: try await insertTestApp(store), owner: .user("alice"), bucket: "notes")
            try await StoreWriter(store: store, scope: aliceScope).commit("secret", ["pin": "1234"])
            _ = try await StoreWriter(store: store, scope: aliceScope).put("same-id", ["x": 1], changeID: "shared-ccid")

            for scope in [bobScope, sharedScope, otherAppScope] {
                #expect(try await store.object(scope, key: "secret") == nil)
                #expect(try await store.objectData(scope, key: "secret", version: 1) == nil)
                #expect(try await store.change(scope, changeID: "shared-ccid") == nil)
                #expect(try await store.index(scope, IndexQuery(limit: 10, includeData: true)).entries.isEmpty)
                let version = try await store.currentVersion(of: scope)
                #expect(version.sequence == 0)
                #expect(try await store.feed(scope, after: ChangeVersion(epoch: version.epoch, sequence: 0), limit: 10) == [])
                // The same change id in another scope is a new change, not a duplicate.
                let (record, _) = try StoreWriter.committed(try await StoreWriter(store: store, scope: scope).put("same-id", ["x": 2], changeID: "shared-ccid"))
                #expect(record.sequence == 1)
            }
            #expect(try await store.object(aliceScope, key: "same-id")?.data == ["x": 1])
            #expect(try await store.appFeed(appID: app, bucket: "notes", after: 0, limit: 10).map(\.ownerKey) == ["alice", "alice", "bob", ""])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func presenceClaimsOfGoneRunsAreOrphans(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let scope = BucketScope(appID: "app", owner: .shared, bucket: "player")
            let mine = PresenceClaim(nodeID: store.nodeID, holder: .connection(SocketConnectionID(rawValue: 1)), scope: scope, key: "a")
            let gone = PresenceClaim(nodeID: "gone-node", holder: .user("u1"), scope: scope, key: "b")
            let goneToo = PresenceClaim(nodeID: "gone-node", holder: .connection(SocketConnectionID(rawValue: 7)), scope: scope, key: "c")
            for claim in [mine, gone, goneToo, gone] { try await store.insertPresenceClaim(claim) }
            #expect(Set(try await store.orphanedPresenceClaims()) == [gone, goneToo])
            try await store.deletePresenceClaims([gone, mine])
            #expect(try await store.orphanedPresenceClaims() == [goneToo])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func peerSecretIsDrawnOncePerApp(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let first = try await insertTestApp(store, id: "a-app")
            let second = try await insertTestApp(store, id: "b-app")
            let secret = try #require(try await store.peerSecret(appID: first))
            #expect(secret.count == 64)
            #expect(try await store.peerSecret(appID: first) == secret)
            #expect(try await store.peerSecret(appID: second) != secret)
            #expect(try await store.peerSecret(appID: "nope") == nil)
        }
    }
}
