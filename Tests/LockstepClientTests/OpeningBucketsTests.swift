import Foundation
import LockstepClient
import LockstepCore
import Testing

/// Opening a bucket while the client streams adds a channel to the socket it has: it does not
/// reconnect, which would release what the connection holds in presence buckets.
@Suite("opening a bucket while streaming")
struct OpeningBucketsTests {
    @Test("a presence object outlives opening a space's bucket and another bucket on the same socket")
    func presenceSurvivesOpeningBuckets() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let admin = server.app.adminToken
        let (status, _) = try await server.request("POST", "__options__/i/lobby", token: admin, body: ["shared": true, "presence": "client"])
        try #require(status == 200)
        let store = temporaryStore()
        defer { removeStore(store) }
        let token = try await server.createUser("ann@example.com")
        let client = try server.client(store: store, token: token, transport: .socket)
        let lobby = try client.bucket("lobby")
        await client.sync.start()
        try await lobby.put("seat", ["name": "ann"])
        try await client.sync.waitUntilIdle()
        #expect(try await server.objects("lobby", token: admin)["seat"] != nil)

        // A match's space, made and opened mid-session, as a game does when a challenge is taken.
        let match = try client.space("match-1")
        try await match.create()
        try await match.bucket("game").put("board", ["turn": "x"])
        try await client.bucket("notes").put("n", ["text": "hello"])
        try await client.sync.waitUntilIdle()
        #expect(try await server.objects("__match-1.game", token: admin)["board"] != nil)
        #expect(try await server.objects("notes", token: token)["n"] != nil)

        // A change written after those buckets opened reaches the client on the lobby's channel;
        // had the socket been replaced, the seat's release would have come before it.
        let (written, _) = try await server.request("POST", "lobby/i/marker", token: admin, body: ["name": "bob"])
        try #require(written == 200)
        try await eventually("the marker reaches the client") { try lobby.get("marker") != nil }
        #expect(try lobby.get("seat") != nil, "the seat was released: the client reconnected to open a bucket")
        #expect(try await server.objects("lobby", token: admin)["seat"] != nil)
        await client.close()
    }
}
