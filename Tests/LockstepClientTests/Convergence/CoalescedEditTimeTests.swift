import Foundation
import LockstepClient
import LockstepCore
import Testing

/// The convergence checker's find (seed 9 on SQLite with peer text, shrunk from 60 steps to 7;
/// the same shape as seed 1006 on two PostgreSQL nodes): a device offline sets a member, another
/// device sets it later through the server, and the first device, still offline, then edits
/// another member. Its edits coalesced into one change, and a change carries one edit time, the
/// latest: so the server took the first device's older value as the later one. The device's
/// own rebase over the later write judged by that time too, and kept its older value.
@Suite("Convergence: edits queued offline keep their own times")
struct CoalescedEditTimeTests {
    @Test("a member set offline does not win over a later write because the device edited another member after it")
    func laterEditOfAnotherMemberDoesNotDateAnEarlierOne() async throws {
        let devices = try await TwoDevices.start(bucket: "items")
        let (server, token, times, clients, items) = (devices.server, devices.token, devices.times, devices.clients, devices.buckets)
        for client in clients { await client.sync.start() }
        try await items[0].put("box", ["status": "listed", "note": ""])
        try await eventually("the box reaches the second device") { try items[1].get("box") != nil }

        await clients[0].sync.stop()
        times[0].set(24_000)
        try await items[0].update("box") { $0["status"] = "packed" }
        times[1].set(26_000)
        try await items[1].update("box") { $0["status"] = "loaded" }
        try await clients[1].sync.waitUntilIdle()
        times[0].set(56_000)
        try await items[0].update("box") { $0["note"] = "heavy" }
        #expect(try clients[0].outbox.pending.count == 2, "the later edit of another member queues a change of its own")

        await clients[0].sync.start()
        for client in clients { try await client.sync.waitUntilIdle() }
        let onServer = try #require(try await server.objects("items", token: token)["box"])
        #expect(onServer == ["status": "loaded", "note": "heavy"])
        try await eventually("both devices hold what the server holds") { try items.allSatisfy { try $0.get("box") == onServer } }
        await devices.stop()
    }

    /// A member the server never had, set and then removed by a device offline: the removal is
    /// the latest edit, and must win over another device's set stamped between the two (the
    /// shape of a seed 1006 failure seen once under load: `tags` removed at 46 ms ended under a
    /// set at 43 ms everywhere).
    @Test("a member set and removed offline still removes another device's set stamped between the two")
    func aRemovalOfAMemberTheServerNeverHadStillCounts() async throws {
        let devices = try await TwoDevices.start(bucket: "items")
        let (server, token, times, clients, items) = (devices.server, devices.token, devices.times, devices.clients, devices.buckets)
        for client in clients { await client.sync.start() }
        try await items[0].put("box", ["status": "listed"])
        try await eventually("the box reaches the second device") { try items[1].get("box") != nil }

        await clients[0].sync.stop()
        times[0].set(40_000)
        try await items[0].update("box") { $0["tags"] = [41] }
        times[0].set(46_000)
        try await items[0].update("box") { $0["tags"] = nil }
        times[1].set(43_000)
        try await items[1].update("box") { $0["tags"] = [43] }
        try await clients[1].sync.waitUntilIdle()

        await clients[0].sync.start()
        for client in clients { try await client.sync.waitUntilIdle() }
        let onServer = try #require(try await server.objects("items", token: token)["box"])
        #expect(onServer == ["status": "listed"], "the removal at 46 s is the latest edit of tags")
        try await eventually("both devices hold what the server holds") { try items.allSatisfy { try $0.get("box") == onServer } }
        await devices.stop()
    }

    /// Seed 1002 on two PostgreSQL nodes, once edits of other members queued changes of their
    /// own: a creation went out without the text a later change set, so the text arrived as a
    /// whole value, and another device's insert replaced it instead of merging.
    @Test("edits of an object the server has not seen yet stay one creation, whatever their times")
    func editsOfAnUnseenObjectStayOneCreation() async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let store = temporaryStore()
        defer { removeStore(store) }
        let times = ManualEditTimes(1_000)
        let client = try server.client(store: store, token: token, transport: .socket, editTimes: times)
        let notes = try client.bucket("notes")
        try await notes.put("note", ["n": 1, "text": ""])
        times.set(2_000)
        try await notes.update("note") { $0["n"] = 2 }
        times.set(3_000)
        try await notes.update("note") { $0["text"] = "[a]" }
        #expect(try client.outbox.pending.count == 1)

        await client.sync.start()
        try await client.sync.waitUntilIdle()
        let (_, feed) = try await server.request("GET", "notes/changes", token: token)
        #expect(feed?.arrayValue?.count == 1, "one change creates the object")
        #expect(try await server.objects("notes", token: token)["note"] == ["n": 2, "text": "[a]"])
        await client.close()
        await server.stop()
    }
}
