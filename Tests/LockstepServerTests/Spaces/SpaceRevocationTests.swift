import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Losing a space takes effect at once: the member's channels on it end, with an error frame,
/// before the removal is even answered; nothing written after reaches them, and what they held
/// in its presence buckets goes; their other channels stay.
///
/// "At once" is checked on the server (the channel's place in ``SpaceChannels`` is gone when
/// the request returns), not by a clock in the test process, which stalls for seconds while
/// the full suite holds both cores.
@Suite("Spaces: revocation reaches open sockets", .timeLimit(.minutes(2)))
struct SpaceRevocationTests {
    @Test func removingAMemberEndsTheirChannelsOnTheSpaceAtOnce() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser("ann@example.com")
        let bob = try await server.createUser("bob@example.com")
        let cat = try await server.createUser("cat@example.com")
        try await ann.createSpace("job-1")
        try await ann.invite("bob@example.com", as: "reader", to: "job-1")
        try await ann.invite("cat@example.com", as: "writer", to: "job-1")
        let socket = try await SocketTestClient.connect(to: server)
        defer { Task { await socket.close() } }
        try await socket.initialize(channel: 0, bucket: "__job-1.items", token: bob.token)
        try await socket.initialize(channel: 1, bucket: "note", token: bob.token)
        #expect(try await ann.request("POST", "__job-1.items/i/before", body: ["n": 0]).status == 200)
        #expect(try await socket.change(channel: 0)["id"] == "before")

        // Cat writes without pause while Bob is removed: whatever Bob received came before the
        // frame that ends his channel, and nothing on the channel follows that frame.
        let writing = Task {
            var written = 0
            while !Task.isCancelled, written < 400 {
                written += 1
                _ = try? await cat.request("POST", "__job-1.items/i/w\(written)", body: ["n": .integer(Int64(written))])
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(server.services.spaceChannels.count == 1)
        #expect(try await ann.spaces("DELETE", "/job-1/members/bob@example.com").status == 200)
        #expect(server.services.spaceChannels.count == 0, "the channel ended, its frame queued, before the removal was answered")
        // Read in order, so that what is left afterwards is what came after the frame.
        var frame: String?
        while frame == nil, let message = await socket.next(timeout: .seconds(10)) {
            if message.hasPrefix("0:?:") { frame = message }
        }
        let ended = try #require(frame, "no error frame")
        let error = try JSONValue(parsing: String(ended.dropFirst(4)))
        #expect(error["code"] == 403)
        #expect(error["message"]?.stringValue?.contains("removed from space job-1") == true, "\(ended)")
        #expect(try await ann.request("POST", "__job-1.items/i/after", body: ["n": 1]).status == 200)
        try await Task.sleep(for: .milliseconds(300))
        writing.cancel()
        _ = await writing.value

        let rest = socket.mailbox.drain()
        #expect(!rest.contains { $0.hasPrefix("0:c:") || $0.hasPrefix("0:i:") }, "the channel sent after its end: \(rest.prefix(3))")
        // The channel stays ended; the socket and its other channel stay open.
        try await socket.send("0:i:1:::10")
        #expect(await socket.next(startingWith: "0:?:") != nil)
        let reopened = try await socket.initialize(channel: 0, bucket: "__job-1.items", token: bob.token, follow: false)
        let refusal = try JSONValue(parsing: reopened)
        #expect(refusal["code"] == 404 && refusal["msg"] == "there is no bucket __job-1.items", "\(reopened)")
        #expect(try await bob.request("POST", "note/i/mine", body: ["a": 1]).status == 200)
        #expect(try await socket.change(channel: 1)["id"] == "mine")
        #expect(try await bob.request("GET", "__job-1.items/i/after").status == 404)
    }

    @Test func aChangedRoleEndsTheChannelsOpenedWithTheOldOne() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser("ann@example.com")
        let bob = try await server.createUser("bob@example.com")
        try await ann.createSpace("job-1")
        try await ann.invite("bob@example.com", as: "writer", to: "job-1")
        let socket = try await SocketTestClient.connect(to: server)
        defer { Task { await socket.close() } }
        try await socket.initialize(bucket: "__job-1.items", token: bob.token)
        try await ann.invite("bob@example.com", as: "reader", to: "job-1")
        #expect(server.services.spaceChannels.count == 0)
        let frame = try #require(await socket.next(startingWith: "0:?:"))
        #expect(frame.contains("your role in space job-1 changed"), "\(frame)")
        try await socket.initialize(bucket: "__job-1.items", token: bob.token)
        try await socket.send(changeMessage(id: "sofa", ccid: "b-1", diff: addingDiff(["a": 1])))
        #expect(try await socket.change()["error"] == 403, "the channel opened again has the new role")
    }

    @Test func aRecheckEndsTheChannelsWhoseRightTheStoreNoLongerHolds() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser("ann@example.com")
        let bob = try await server.createUser("bob@example.com")
        try await ann.createSpace("job-1")
        try await ann.invite("bob@example.com", as: "writer", to: "job-1")
        let bobs = try await SocketTestClient.connect(to: server)
        let anns = try await SocketTestClient.connect(to: server)
        defer { Task { await bobs.close(); await anns.close() } }
        try await bobs.initialize(bucket: "__job-1.items", token: bob.token)
        try await anns.initialize(bucket: "__job-1.items", token: ann.token)
        // Changed behind this node's back, as another node does while this one's relay is away.
        let space = try #require(try await server.services.store.space(appID: server.appID, name: "job-1"))
        _ = try await server.services.store.setSpaceRole(appID: server.appID, spaceID: space.id, email: "bob@example.com", role: .reader)
        try await server.services.spaces.recheckOpenChannels()
        let frame = try #require(await bobs.next(startingWith: "0:?:"))
        #expect(frame.contains("your role in space job-1 changed"), "\(frame)")
        #expect(server.services.spaceChannels.count == 1, "Ann's channel, whose right holds, stays")
        _ = try await server.services.store.deleteSpace(appID: server.appID, spaceID: space.id)
        try await server.services.spaces.recheckOpenChannels()
        #expect(try #require(await anns.next(startingWith: "0:?:")).contains("space job-1 was deleted"))
    }

    @Test func deletingASpaceEndsEveryChannelOnIt() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser("ann@example.com")
        try await ann.createSpace("match-1")
        let owner = try await SocketTestClient.connect(to: server)
        let admin = try await SocketTestClient.connect(to: server)
        defer { Task { await owner.close(); await admin.close() } }
        try await owner.initialize(bucket: "__match-1.moves", token: ann.token)
        try await admin.initialize(bucket: "__match-1.moves", token: server.app.adminToken)
        #expect(server.services.spaceChannels.count == 2)
        #expect(try await ann.spaces("DELETE", "/match-1").status == 200)
        #expect(server.services.spaceChannels.count == 0, "every channel on it ended before the deletion was answered")
        for socket in [owner, admin] {
            let frame = try #require(await socket.next(startingWith: "0:?:"))
            #expect(frame.contains("space match-1 was deleted"), "\(frame)")
        }
    }

    @Test func aRemovedMembersPresenceInTheSpaceIsReleased() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        #expect(try await server.admin("POST", "__options__/i/players", body: ["presence": "client"]).status == 200)
        #expect(try await server.admin("POST", "__options__/i/online", body: ["presence": "user"]).status == 200)
        let ann = try await server.createUser("ann@example.com")
        let bob = try await server.createUser("bob@example.com")
        try await ann.createSpace("match-1")
        try await ann.createSpace("match-2")
        try await ann.invite("bob@example.com", as: "writer", to: "match-1")
        try await ann.invite("bob@example.com", as: "writer", to: "match-2")
        let socket = try await SocketTestClient.connect(to: server)
        defer { Task { await socket.close() } }
        for (channel, bucket) in ["__match-1.players", "__match-1.online", "__match-2.players"].enumerated() {
            try await socket.initialize(channel: channel, bucket: bucket, token: bob.token)
            try await socket.send(changeMessage(channel: channel, id: "bob", ccid: "p-\(channel)", diff: addingDiff(["here": true])))
            #expect(try await socket.change(channel: channel)["id"] == "bob")
        }
        #expect(try await ann.spaces("DELETE", "/match-1/members/bob@example.com").status == 200)
        try await waitUntil {
            let players = try await ann.request("GET", "__match-1.players/i/bob").status
            let online = try await ann.request("GET", "__match-1.online/i/bob").status
            return players == 404 && online == 404
        }
        // Bob's connection and his presence in the space he is still in stay.
        #expect(try await ann.request("GET", "__match-2.players/i/bob").status == 200)
    }
}
