import Foundation
import LockstepClient
import LockstepCore
import LockstepServer
import Testing
@testable import lockstep
@testable import lockstep_bench

@Suite("Sync with a real server")
struct SyncTests {
    @Test("changes travel between two clients", arguments: Transport.allCases)
    func twoClients(transport: Transport) async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let alice = try server.client(token: token, transport: transport)
        let bob = try server.client(token: token, transport: transport)
        let bobNotes = try bob.bucket("notes")
        let bobEvents = bobNotes.events
        await alice.sync.start()
        await bob.sync.start()

        try await alice.bucket("notes").put("n1", ["title": "hello", "tags": ["a"]])
        let arrived = try await nextEvent(bobEvents) { $0.origin == .remote }
        #expect(arrived == BucketEvent(kind: .inserted, bucket: "notes", key: "n1", object: ["title": "hello", "tags": ["a"]], origin: .remote))

        try await bobNotes.update("n1") { $0["title"] = "hello world" }
        try await eventually("alice sees bob's edit") { try alice.bucket("notes").get("n1")?["title"] == "hello world" }
        try await alice.sync.waitUntilIdle()
        try await bob.sync.waitUntilIdle()
        #expect(try await server.objects("notes", token: token) == ["n1": ["title": "hello world", "tags": ["a"]]])
        if transport == .socket {
            #expect(alice.sync.state == .streaming)
        } else {
            // Between polling windows it tries the refused socket again: never streaming, though.
            #expect([.polling, .connecting].contains(alice.sync.state))
        }
        await alice.close()
        await bob.close()
        await server.stop()
    }

    /// Behind a proxy that refuses upgrades and then lets them through: the client syncs over
    /// HTTP without pause meanwhile, and streams once the socket opens.
    @Test("a polling client streams once its socket can be opened")
    func pollingGivesWayToTheSocket() async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let port = try BenchProcesses.freePort()
        var configuration = LockstepClient.Configuration(
            backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)), pollingWindow: .seconds(1))
        configuration.logger.logLevel = .warning
        configuration.socketURL = URL(string: "ws://127.0.0.1:\(port)/sock/1/\(server.appID)/websocket")!
        let alice = try LockstepClient(storeDirectory: temporaryStore(), server: server.baseURL, app: server.appID, token: token, configuration: configuration)
        let bob = try server.client(token: token, transport: .socket)
        await alice.sync.start()
        await bob.sync.start()
        try await alice.bucket("notes").put("n1", ["by": "alice, polling"])
        try await eventually("bob has alice's note") { try bob.bucket("notes").get("n1") != nil }
        #expect(alice.sync.state == .polling)

        // The way to the socket opens: the client finds it within a window or two.
        let relay = try await DelayRelay.start(
            targetPort: server.port, link: LinkModel(name: "none", up: .fixed(milliseconds: 0), down: .fixed(milliseconds: 0)), listeningOn: port)
        try await eventually("alice streams") { alice.sync.state == .streaming }
        try await bob.bucket("notes").put("n2", ["by": "bob"])
        try await eventually("alice has bob's note over the socket") { try alice.bucket("notes").get("n2") != nil }
        await alice.close()
        await bob.close()
        try await relay.stop()
        await server.stop()
    }

    @Test("edits made offline are sent once the server can be reached", arguments: Transport.allCases)
    func offlineThenOnline(transport: Transport) async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let store = temporaryStore()
        defer { removeStore(store) }
        do {
            // Written while nothing syncs, then abandoned without closing.
            let offline = try server.client(store: store, token: token, transport: transport)
            for index in 0..<20 { try await offline.bucket("jobs").put("job-\(index)", ["room": .integer(Int64(index))]) }
            try await offline.bucket("jobs").update("job-3") { $0["done"] = true }
        }
        let client = try server.client(store: store, token: token, transport: transport)
        #expect(try client.outbox.pending.count == 20)
        await client.sync.start()
        try await client.sync.waitUntilIdle()
        let onServer = try await server.objects("jobs", token: token)
        #expect(onServer.count == 20)
        #expect(onServer["job-3"] == ["room": 3, "done": true])
        await client.close()
        await server.stop()
    }

    @Test("an earlier edit that arrives late loses to a later one", arguments: Transport.allCases)
    func lastEditWins(transport: Transport) async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let fieldTimes = ManualEditTimes(1_000)
        let deskTimes = ManualEditTimes(1_000)
        let field = try server.client(token: token, transport: transport, editTimes: fieldTimes)
        let desk = try server.client(token: token, transport: transport, editTimes: deskTimes)
        let fieldItems = try field.bucket("items")
        let deskItems = try desk.bucket("items")
        await field.sync.start()
        await desk.sync.start()
        // Members replaced whole (numbers) are decided by edit time; concurrent edits of one
        // string would merge as text instead.
        try await fieldItems.put("sofa", ["shelf": 1, "state": "new", "note": ""])
        try await field.sync.waitUntilIdle()
        try await eventually("desk has the sofa") { try deskItems.get("sofa") != nil }

        // The field phone goes offline and edits at t=2000 (server time)…
        await field.sync.stop()
        fieldTimes.set(2_000)
        try await fieldItems.update("sofa") { $0["shelf"] = 2; $0["note"] = "scratched" }
        // …while the desk, online, edits the same member at t=3000, and a different one.
        deskTimes.set(3_000)
        try await deskItems.update("sofa") { $0["shelf"] = 3; $0["state"] = "sold" }
        try await desk.sync.waitUntilIdle()

        await field.sync.start()
        try await field.sync.waitUntilIdle()
        let expected: JSONObject = ["shelf": 3, "state": "sold", "note": "scratched"]
        try await eventually("both converge") { try fieldItems.get("sofa") == expected && deskItems.get("sofa") == expected }
        #expect(try await server.objects("items", token: token)["sofa"] == expected)

        // An offline edit made later than the online one wins even though it arrives last.
        await field.sync.stop()
        fieldTimes.set(5_000)
        try await fieldItems.update("sofa") { $0["shelf"] = 5 }
        deskTimes.set(4_000)
        try await deskItems.update("sofa") { $0["shelf"] = 4 }
        try await desk.sync.waitUntilIdle()
        await field.sync.start()
        try await field.sync.waitUntilIdle()
        try await eventually("the later edit wins everywhere") {
            try fieldItems.get("sofa")?["shelf"] == 5 && deskItems.get("sofa")?["shelf"] == 5
        }
        await field.close()
        await desk.close()
        await server.stop()
    }

    @Test("deleted objects never come back", arguments: Transport.allCases)
    func deletionsStick(transport: Transport) async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let alice = try server.client(token: token, transport: transport)
        let bob = try server.client(token: token, transport: transport)
        let aliceNotes = try alice.bucket("notes")
        let bobNotes = try bob.bucket("notes")
        await alice.sync.start()
        await bob.sync.start()
        try await aliceNotes.put("n", ["text": "x"])
        try await eventually("bob has it") { try bobNotes.get("n") != nil }

        // Bob edits offline while Alice deletes.
        await bob.sync.stop()
        try await bobNotes.update("n") { $0["text"] = "edited offline" }
        try await aliceNotes.delete("n")
        try await alice.sync.waitUntilIdle()
        let bobEvents = bobNotes.events
        await bob.sync.start()
        let gone = try await nextEvent(bobEvents) { $0.key == "n" }
        #expect(gone.kind == .deleted)
        try await bob.sync.waitUntilIdle()
        #expect(try bobNotes.get("n") == nil)
        #expect(try aliceNotes.get("n") == nil)
        #expect(try await server.objects("notes", token: token)["n"] == nil)
        await #expect(throws: LockstepClientError.removed(bucket: "notes", key: "n")) { try await bobNotes.put("n", ["text": "again"]) }
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test("urgent changes go first; unsent edits to one object coalesce into one change", arguments: Transport.allCases)
    func prioritiesAndCoalescing(transport: Transport) async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let client = try server.client(token: token, transport: transport)
        let jobs = try client.bucket("jobs")
        try await jobs.put("low", ["v": 1], priority: .low)
        try await jobs.put("normal", ["v": 1])
        try await jobs.put("urgent", ["v": 1], priority: .urgent)
        for step in 2...5 { try await jobs.update("normal") { $0["v"] = .integer(Int64(step)) } }
        #expect(try client.outbox.pending.count == 3)
        await client.sync.start()
        try await client.sync.waitUntilIdle()

        let (status, feed) = try await server.request("GET", "jobs/changes", token: token)
        #expect(status == 200)
        let changes = try #require(feed?.arrayValue)
        #expect(changes.compactMap { $0["id"]?.stringValue } == ["urgent", "normal", "low"])
        #expect(changes.compactMap { $0["ev"]?.integerValue } == [1, 1, 1])
        #expect(try await server.objects("jobs", token: token)["normal"] == ["v": 5])
        await client.close()
        await server.stop()
    }

    @Test("a change the server rejects is rolled back visibly", arguments: Transport.allCases)
    func rollback(transport: Transport) async throws {
        var limits = TestServer.testLimits
        limits.maximumObjectBytes = 200
        let server = try await TestServer.start(limits: limits)
        let token = try await server.createUser()
        let client = try server.client(token: token, transport: transport)
        let notes = try client.bucket("notes")
        await client.sync.start()
        try await notes.put("small", ["text": "ok"])
        try await client.sync.waitUntilIdle()

        let events = notes.events
        let big = JSONValue.string(String(repeating: "x", count: 500))
        try await notes.update("small") { $0["text"] = big }
        try await notes.put("huge", ["text": big])
        #expect(try await nextEvent(events).origin == .local)
        #expect(try await nextEvent(events).origin == .local)
        let first = try await nextEvent(events) { $0.origin != .local }
        let second = try await nextEvent(events) { $0.origin != .local }
        let rollbacks = [first, second].sorted { $0.key > $1.key }
        #expect(rollbacks.map(\.kind) == [.updated, .deleted])
        #expect(rollbacks.allSatisfy { if case .rejected(413, _) = $0.origin { true } else { false } })
        #expect(try notes.get("small") == ["text": "ok"])
        #expect(try notes.get("huge") == nil)
        #expect(try client.outbox.pending.isEmpty)
        #expect(try client.outbox.rejected.map(\.key).sorted() == ["huge", "small"])
        await client.close()
        await server.stop()
    }
}
