import Foundation
import LockstepCore
import LockstepServer
import Testing

/// A group of changes commits as one transaction, with the rules of changes committed one by
/// one: run against each store.
@Suite("Group commit (SQLite and PostgreSQL)")
struct GroupCommitTests {
    @Test(arguments: StoreKind.allCases)
    func theSameChangeIDTwiceInOneGroupAppliesOnce(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let writer = StoreWriter(store: store, scope: BucketScope(appID: try await insertTestApp(store), owner: .user("u1"), bucket: "notes"))
            let outcomes = try await writer.group([
                writer.change("a", ["n": 1], changeID: "same"), writer.change("a", ["n": 2], changeID: "same"),
                writer.change("b", ["n": 3], changeID: "other"),
            ])
            let (first, _) = try StoreWriter.committed(outcomes[0])
            let repeated = try StoreWriter.rejection(outcomes[1])
            #expect(repeated.reason == .duplicate && repeated.original == first)
            let (third, _) = try StoreWriter.committed(outcomes[2])
            #expect([first.sequence, third.sequence] == [1, 2])
            #expect(try await store.object(writer.scope, key: "a")?.data == ["n": 1])
            #expect(try await store.currentVersion(of: writer.scope).sequence == 2)
        }
    }

    /// Change ids accepted by earlier groups, in two buckets and with characters that need
    /// escaping, are found when a later group resends them among new ones: each bucket's ids are
    /// looked up together, and only that bucket's.
    @Test(arguments: StoreKind.allCases)
    func changeIDsAcceptedEarlierAreFoundAmongNewOnes(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            let notes = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("u1"), bucket: "notes"))
            let tasks = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("u1"), bucket: "tasks"))
            let odd = [#"quote "q" and \ back"#, "naïve ☃ \u{1F600}", "tab\tnewline\n", "[\"x\"]"]
            let first = try await store.commit(ChangeGroup(
                requests: odd.map { ChangeRequest(scope: notes.scope, change: notes.change("k-\($0)", ["n": 1], changeID: $0)) },
                time: 1, limits: Limits()))
            let originals = try first.map { try StoreWriter.committed($0).0 }

            // The same ids again in notes (duplicates), and in tasks, where they are new.
            let again = try await store.commit(ChangeGroup(
                requests: odd.flatMap { id in [
                    ChangeRequest(scope: notes.scope, change: notes.change("k-\(id)", ["n": 2], changeID: id)),
                    ChangeRequest(scope: tasks.scope, change: tasks.change("k-\(id)", ["n": 2], changeID: id)),
                ] } + [ChangeRequest(scope: notes.scope, change: notes.change("fresh", ["n": 2], changeID: "fresh"))],
                time: 2, limits: Limits()))
            for (index, id) in odd.enumerated() {
                let repeated = try StoreWriter.rejection(again[2 * index])
                #expect(repeated.reason == .duplicate && repeated.original == originals[index], "\(id)")
                #expect(try StoreWriter.committed(again[2 * index + 1]).0.changeID == id)
                #expect(try await store.object(notes.scope, key: "k-\(id)")?.data == ["n": 1])
            }
            #expect(try StoreWriter.committed(again[again.count - 1]).0.changeID == "fresh")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRefusedChangeIsRefusedAlone(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            var writer = StoreWriter(store: store, scope: BucketScope(appID: try await insertTestApp(store), owner: .shared, bucket: "items"))
            writer.limits.maximumObjectBytes = 100
            let outcomes = try await writer.group([
                writer.change("a", ["n": 1]),
                writer.change("ghost", ["n": 1], source: 4),  // 404: no such object to be a base
                writer.change("big", ["text": .string(String(repeating: "x", count: 200))]),  // 413
                writer.change("a", ["n": 2]),
                writer.change("a", ["n": 2]),  // 412: changes nothing
                writer.removal("never"),  // 404
                writer.change("c", ["n": 3]),
            ])
            #expect(try outcomes.map { outcome -> String in
                if case .rejected(let rejection) = outcome { return "\(rejection.code)" }
                return "v\(try StoreWriter.committed(outcome).0.endVersion)"
            } == ["v1", "404", "413", "v2", "412", "404", "v1"])
            #expect(try await store.object(writer.scope, key: "a")?.data == ["n": 2])
            #expect(try await store.object(writer.scope, key: "big") == nil)
            #expect(try await store.feed(writer.scope, after: ChangeVersion(epoch: try await store.currentVersion(of: writer.scope).epoch, sequence: 0), limit: 10)?
                .map(\.key) == ["a", "a", "c"])
        }
    }

    /// Changes in a group see those before them: each rebases over what the group already did.
    @Test(arguments: StoreKind.allCases)
    func changesInAGroupRebaseOverEachOther(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let writer = StoreWriter(store: store, scope: BucketScope(appID: try await insertTestApp(store), owner: .user("u1"), bucket: "notes"))
            try await writer.commit("doc", ["n": 0, "items": [], "text": "hello"])
            func edit(_ diff: String, client: String) throws -> IncomingChange {
                IncomingChange(
                    key: "doc", changeID: UUID().uuidString, clientID: client,
                    operation: .modify(diff: try ObjectDiff(json: try JSONValue(parsing: diff)), fullData: nil), sourceVersion: 1,
                    editTime: nil)
            }
            let outcomes = try await writer.group([
                try edit(#"{"n":{"o":"I","v":5},"items":{"o":"L","v":{"0":{"o":"+","v":"x"}}}}"#, client: "a"),
                try edit(#"{"n":{"o":"I","v":2},"items":{"o":"L","v":{"0":{"o":"+","v":"y"}}}}"#, client: "b"),
                try edit(#"{"text":{"o":"d","v":"=5\t+ world"}}"#, client: "c"),
                try edit(#"{"text":{"o":"d","v":"+oh, \t=5"}}"#, client: "d"),
            ])
            for outcome in outcomes { try StoreWriter.committed(outcome) }
            let doc = try #require(try await store.object(writer.scope, key: "doc"))
            #expect(doc.version == 5)
            #expect(doc.data["n"] == 7)
            #expect(Set(doc.data["items"]?.arrayValue ?? []) == ["x", "y"])
            #expect(doc.data["text"] == "oh, hello world")
        }
    }

    /// The change record keeps what an increment or a list insert meant, so a later change
    /// rebases over the increment, not over the replace that went to clients.
    @Test(arguments: StoreKind.allCases)
    func incrementsAndInsertsInSeparateGroupsAllLand(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let writer = StoreWriter(store: store, scope: BucketScope(appID: try await insertTestApp(store), owner: .user("u1"), bucket: "notes"))
            try await writer.commit("doc", ["n": 0, "items": []])
            var records: [ChangeRecord] = []
            for (amount, item) in [(5, "x"), (2, "y"), (10, "z")] {
                let diff = try ObjectDiff(json: try JSONValue(parsing: #"{"n":{"o":"I","v":\#(amount)},"items":{"o":"L","v":{"0":{"o":"+","v":"\#(item)"}}}}"#))
                let change = IncomingChange(
                    key: "doc", changeID: UUID().uuidString, clientID: "client-\(item)", operation: .modify(diff: diff, fullData: nil),
                    sourceVersion: 1, editTime: nil)
                records.append(try StoreWriter.committed(try await writer.group([change])[0]).0)
            }
            let doc = try #require(try await store.object(writer.scope, key: "doc"))
            #expect(doc.data["n"] == 17)
            #expect(Set(doc.data["items"]?.arrayValue ?? []) == ["x", "y", "z"])
            // What went out is portable (no I or L); what the record keeps is the intent.
            #expect(records.allSatisfy { $0.diff?.isPortable == true && $0.intent?.isPortable == false })
            #expect(try await store.change(writer.scope, changeID: records[1].changeID)?.intent == records[1].intent)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func onlyIfAbsentRefusesALiveObjectAndChangesNothing(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let scope = BucketScope(appID: try await insertTestApp(store), owner: .user("u1"), bucket: "purchases")
            let writer = StoreWriter(store: store, scope: scope)
            func onlyIfAbsent(_ changes: [IncomingChange]) async throws -> [ChangeOutcome] {
                try await store.commit(ChangeGroup(
                    requests: changes.map { ChangeRequest(scope: scope, change: $0, onlyIfAbsent: true) }, time: 1, limits: Limits()))
            }
            try await writer.commit("taken", ["item": "shield"])

            // A live object at the key: refused, whatever its change id, and left as it was.
            let refused = try StoreWriter.rejection(try await onlyIfAbsent([writer.change("taken", ["item": "sword"])])[0])
            #expect(refused.reason == .duplicate && refused.original == nil)
            #expect(try await store.object(scope, key: "taken")?.data == ["item": "shield"])

            // A free key: created; a second change for it in the same group finds it taken.
            let outcomes = try await onlyIfAbsent([writer.change("free", ["item": "sword"]), writer.change("free", ["item": "bow"])])
            try StoreWriter.committed(outcomes[0])
            #expect(try StoreWriter.rejection(outcomes[1]).reason == .duplicate)
            #expect(try await store.object(scope, key: "free")?.data == ["item": "sword"])

            // A removed object is not brought back: the merge rules refuse it as ever.
            try StoreWriter.committed(try await writer.remove("free"))
            #expect(try StoreWriter.rejection(try await onlyIfAbsent([writer.change("free", ["item": "bow"])])[0]).reason == .removed)
        }
    }
}
