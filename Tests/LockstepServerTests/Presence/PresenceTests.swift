import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Presence over real sockets: objects inserted into a presence bucket go when their holder does.
@Suite("Presence: objects that live as long as their connection or user")
struct PresenceTests {
    @Test func clientPresenceRemovesWhatAClosedConnectionInserted() async throws {
        try await withTwoPlayers(["shared": true, "presence": "client"]) { server, leaving, staying, bob in
            try await leaving.send(changeMessage(id: "alice", ccid: "l-1", diff: addingDiff(["name": "alice"])))
            try await staying.send(changeMessage(id: "bob", ccid: "s-1", diff: addingDiff(["name": "bob"])))
            #expect(try await bob.request("POST", "player/i/board", body: ["size": 3]).status == 200)
            try await waitUntil { try await objectKeys(server, "player", as: bob) == ["alice", "board", "bob"] }
            // An update by someone else does not take the object from its holder.
            #expect(try await bob.request("POST", "player/i/alice", body: ["seen": true]).status == 200)

            await leaving.close()
            let removal = try await nextRemoval(of: "alice", on: staying)
            #expect(removal["clientid"] == "lockstep-presence")
            #expect(try await objectKeys(server, "player", as: bob) == ["board", "bob"])
        }
    }

    /// A connection that closes before its creation is durable: the creation commits (it was
    /// read) and is announced after the connection is gone, and still goes with it.
    @Test func aCreationAnsweredAfterItsConnectionClosedIsRemoved() async throws {
        try await withTwoPlayers(["shared": true, "presence": "client"]) { server, leaving, staying, bob in
            try await leaving.send(changeMessage(id: "alice", ccid: "l-1", diff: addingDiff(["name": "alice"])))
            await leaving.close()
            _ = try await nextCreation(of: "alice", on: staying)
            let removal = try await nextRemoval(of: "alice", on: staying)
            #expect(removal["clientid"] == "lockstep-presence")
            #expect(try await objectKeys(server, "player", as: bob) == [])
        }
    }

    /// Creations in a bucket without presence do not wake the presence service (its options,
    /// read for the change, say so); once presence is set, the very next creation is claimed.
    @Test func presenceSetOnABucketInUseClaimsTheNextCreation() async throws {
        try await withTwoPlayers(["shared": true]) { server, leaving, staying, bob in
            try await leaving.send(changeMessage(id: "before", ccid: "l-1", diff: addingDiff(["name": "alice"])))
            #expect(try await staying.change()["ccids"] == ["l-1"])

            try await setOptions(server, bucket: "player", ["shared": true, "presence": "client"])
            try await leaving.send(changeMessage(id: "after", ccid: "l-2", diff: addingDiff(["name": "alice"])))
            #expect(try await staying.change()["ccids"] == ["l-2"])
            await leaving.close()
            let removal = try await nextRemoval(of: "after", on: staying)
            #expect(removal["clientid"] == "lockstep-presence")
            #expect(try await objectKeys(server, "player", as: bob) == ["before"], "what was created before presence stays")
        }
    }

    @Test func userPresenceWaitsForTheUsersLastConnection() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        try await setOptions(server, bucket: "online", ["presence": "user"])
        let alice = try await server.createUser()
        let phone = try await SocketTestClient.connect(to: server)
        let laptop = try await SocketTestClient.connect(to: server)
        try await phone.initialize(bucket: "online", token: alice.token, clientID: "phone")
        try await laptop.initialize(bucket: "online", token: alice.token, clientID: "laptop")
        try await phone.send(changeMessage(id: "status", ccid: "p-1", diff: addingDiff(["state": "here"])))
        _ = try await laptop.json(after: "0:c:")

        await phone.close()
        // The laptop still holds alice's presence: give the server time to (wrongly) remove it.
        try await laptop.send("h:1")
        #expect(await laptop.next(startingWith: "h:") == "h:2")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await objectKeys(server, "online", as: alice) == ["status"])

        await laptop.close()
        try await waitUntil { try await objectKeys(server, "online", as: alice) == [] }
    }

    /// A peer whose network vanished (its bytes dropped both ways, nothing closed: it answers
    /// no ping) is closed as its heartbeat timeout passes, and the other holders see its object
    /// go within half a second of that. It is last heard from just after a quarter of the
    /// timeout since it connected: where a watch that looked only every quarter (from the
    /// upgrade on) found the silence latest, nearly a quarter after the timeout.
    @Test func aPeerWhoseNetworkVanishedLosesItsObjectsAsTheHeartbeatTimeoutPasses() async throws {
        let timeout = Duration.seconds(4)
        var limits = TestServer.testLimits
        limits.heartbeatTimeoutSeconds = 4
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        try await setOptions(server, bucket: "player", ["shared": true, "presence": "client"])
        let alice = try await server.createUser()
        let bob = try await server.createUser()
        let staying = try await SocketTestClient.connect(to: server)
        defer { Task { await staying.close() } }
        try await staying.initialize(bucket: "player", token: bob.token, clientID: "staying")
        let network = try await HoldingProxy.start(to: server.port)
        defer { Task { await network.stop() } }
        let vanishing = try await SocketTestClient.connect(to: server, port: network.port)
        let upgraded = ContinuousClock.now
        defer { Task { await vanishing.close() } }
        try await vanishing.initialize(bucket: "player", token: alice.token, clientID: "vanishing")
        try await vanishing.send(changeMessage(id: "alice", ccid: "v-1", diff: addingDiff(["name": "alice"])))
        _ = try await nextCreation(of: "alice", on: staying)

        let quarter = timeout / 4
        let quartersGone = Int(((ContinuousClock.now - upgraded) / quarter).rounded(.down))
        try await Task.sleep(until: upgraded + quarter * (quartersGone + 1) + .milliseconds(100))
        try await vanishing.send("h:1")
        let lastSent = ContinuousClock.now
        #expect(await vanishing.next(startingWith: "h:") == "h:2")
        network.dropEverything()
        let silenced = ContinuousClock.now

        _ = try await nextRemoval(of: "alice", on: staying)
        let removed = ContinuousClock.now
        #expect(removed - lastSent >= timeout, "the peer was taken for gone before it was silent for the timeout")
        #expect(
            removed - silenced <= timeout + .milliseconds(500),
            "the removal came \(removed - silenced) after the peer went silent, with a timeout of \(timeout)")
        print("a silent peer's object removed \(removed - lastSent) after it was last heard from (timeout \(timeout))")
    }

    @Test func objectsOfConnectionsThatDiedWithTheServerGoWhenItStartsAgain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-presence-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("lockstep.sqlite").path

        let first = try await TestServer.start(store: try SQLiteStore(path: path))
        try await setOptions(first, bucket: "player", ["shared": true, "presence": "client"])
        let alice = try await first.createUser()
        let socket = try await SocketTestClient.connect(to: first)
        try await socket.initialize(bucket: "player", token: alice.token, clientID: "doomed")
        try await socket.send(changeMessage(id: "alice", ccid: "d-1", diff: addingDiff(["name": "alice"])))
        _ = try await socket.json(after: "0:c:")
        // Another opening of the file is another run: it sees the first run's claim as an orphan.
        let observer = try SQLiteStore(path: path)
        try await waitUntil { try await observer.orphanedPresenceClaims().map(\.key) == ["alice"] }

        // Killed, not shut down: the presence service stops with everything else.
        await first.stop()
        await socket.close()
        let scope = BucketScope(appID: first.appID, owner: .shared, bucket: "player")
        #expect(try await observer.object(scope, key: "alice")?.isDeleted == false, "the object must outlive the crash for the test to mean anything")

        let second = try await TestServer.start(store: observer)
        defer { Task { await second.stop() } }
        await second.services.presence.waitUntilReady()
        #expect(try await observer.object(scope, key: "alice")?.isDeleted == true)
        #expect(try await observer.orphanedPresenceClaims().isEmpty)
    }
}

private func setOptions(_ server: TestServer, bucket: String, _ options: JSONObject) async throws {
    let response = try await server.request(
        "POST", "/1/\(server.appID)/__options__/i/\(bucket)", headers: ["X-Simperium-Token": server.app.adminToken],
        body: .object(options))
    #expect(response.status == 200)
}

/// Runs `body` on a server whose `player` bucket has `options`, with two users on channel 0 of
/// it: alice's connection, which the test closes, and bob's, which stays, with bob to read the
/// bucket as.
private func withTwoPlayers(
    _ options: JSONObject, _ body: (TestServer, _ leaving: SocketTestClient, _ staying: SocketTestClient, _ bob: UserSession) async throws -> Void
) async throws {
    let server = try await TestServer.start()
    defer { Task { await server.stop() } }
    try await setOptions(server, bucket: "player", options)
    let alice = try await server.createUser()
    let bob = try await server.createUser()
    let leaving = try await SocketTestClient.connect(to: server)
    let staying = try await SocketTestClient.connect(to: server)
    defer { Task { await staying.close() } }
    try await leaving.initialize(bucket: "player", token: alice.token, clientID: "leaving")
    try await staying.initialize(bucket: "player", token: bob.token, clientID: "staying")
    try await body(server, leaving, staying, bob)
}

/// The keys of the live objects of a bucket, as the user's index shows them, sorted.
private func objectKeys(_ server: TestServer, _ bucket: String, as user: UserSession) async throws -> [String] {
    let index = try await user.request("GET", "\(bucket)/index?limit=1000")
    return (index.json?["index"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }.sorted()
}

/// Waits for the broadcast of `key`'s creation on channel 0 of `client`.
private func nextCreation(of key: String, on client: SocketTestClient) async throws -> JSONObject {
    try await nextChange(of: key, operation: "M", on: client)
}

/// Waits for the broadcast of `key`'s removal on channel 0 of `client`.
private func nextRemoval(of key: String, on client: SocketTestClient) async throws -> JSONObject {
    try await nextChange(of: key, operation: "-", on: client)
}

private func nextChange(of key: String, operation: String, on client: SocketTestClient) async throws -> JSONObject {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        guard let message = await client.next(startingWith: "0:c:") else { break }
        let changes = try JSONValue(parsing: String(message.dropFirst(4)))
        if let change = changes.arrayValue?.compactMap(\.objectValue).first(where: { $0["id"]?.stringValue == key && $0["o"]?.stringValue == operation }) {
            return change
        }
    }
    throw SocketTestError.noMessage("\(operation) of \(key)")
}
