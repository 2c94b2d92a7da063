import Foundation
import LockstepClient
import LockstepCore
import Testing

@Suite("Offline store and outbox")
struct OfflineStoreTests {
    /// Nothing listens here: every sync attempt fails.
    let nowhere = URL(string: "http://127.0.0.1:9")!

    @Test("writes are durable and eager, with no server")
    func writesWithoutServer() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: nowhere, app: "app", token: "t")
        let notes = try client.bucket("notes")
        let events = notes.events
        try await notes.put("a", ["title": "first"])
        let event = try await nextEvent(events)
        #expect(event == BucketEvent(kind: .inserted, bucket: "notes", key: "a", object: ["title": "first"], origin: .local))
        try await notes.update("a") { $0["done"] = true }
        #expect(try notes.get("a") == ["title": "first", "done": true])
        #expect(try notes.list().map(\.key) == ["a"])
        // Two edits, one object, nothing sent yet: one change.
        #expect(try client.outbox.pending.map(\.status) == [.queued])
        await client.close()
    }

    @Test("a store abandoned without closing reopens with its objects and outbox")
    func survivesAbandonment() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        var first: LockstepClient? = try LockstepClient(storeDirectory: store, server: nowhere, app: "app", token: "t")
        try await first!.bucket("notes").put("a", ["n": 1])
        try await first!.bucket("notes").put("b", ["n": 2], priority: .urgent)
        let clientID = first!.clientID
        first = nil  // no close(): as if the process died

        let reopened = try LockstepClient(storeDirectory: store, server: nowhere, app: "app", token: "t")
        #expect(reopened.clientID == clientID)
        #expect(try reopened.bucket("notes").get("a") == ["n": 1])
        let pending = try reopened.outbox.pending
        #expect(pending.map(\.key) == ["a", "b"])
        #expect(pending.map(\.priority) == [.normal, .urgent])
        await reopened.close()
    }

    @Test("cancelling a queued change restores the object")
    func cancel() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: nowhere, app: "app", token: "t")
        let notes = try client.bucket("notes")
        try await notes.put("a", ["n": 1])
        let events = notes.events
        try await client.outbox.cancel(try #require(client.outbox.pending.first))
        #expect(try notes.get("a") == nil)
        #expect(try client.outbox.pending.isEmpty)
        let event = try await nextEvent(events)
        #expect(event.kind == .deleted && event.key == "a")
        await client.close()
    }

    @Test("deleted keys cannot be written again")
    func tombstonesStay() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: nowhere, app: "app", token: "t")
        let notes = try client.bucket("notes")
        try await notes.put("a", ["n": 1])
        try await notes.delete("a")
        #expect(try notes.get("a") == nil)
        await #expect(throws: LockstepClientError.removed(bucket: "notes", key: "a")) { try await notes.put("a", ["n": 2]) }
        await #expect(throws: LockstepClientError.notFound(bucket: "notes", key: "zz")) { try await notes.delete("zz") }
        await client.close()
    }

    struct Item: Codable, Sendable, Equatable {
        var name: String
        var count: Int
    }

    @Test("typed buckets store Codable values as JSON objects")
    func typed() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: nowhere, app: "app", token: "t")
        let items = try client.bucket("items", of: Item.self)
        let key = try await items.insert(Item(name: "chair", count: 2))
        try await items.update(key) { $0.count += 1 }
        #expect(try items.get(key) == Item(name: "chair", count: 3))
        #expect(try items.raw.get(key) == ["name": "chair", "count": 3])
        await client.close()
    }
}
