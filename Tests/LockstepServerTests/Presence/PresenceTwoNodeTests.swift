import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Presence on two PostgreSQL nodes: `user` presence counts both nodes' connections, and the
/// objects held by a node that is gone are released by the one that lives.
@Suite("Presence across PostgreSQL nodes", .timeLimit(.minutes(2)))
struct PresenceTwoNodeTests {
    @Test func userPresenceWaitsForTheUsersLastConnectionOnAnyNode() async throws {
        try await TwoNodes.with { one, two in
            try await setPresence(one, bucket: "online", "user")
            let alice = try await one.server.createUser("alice@example.com")
            let phone = try await SocketTestClient.connect(to: one.server)
            let laptop = try await SocketTestClient.connect(to: two.server, app: one.server.appID)
            try await phone.initialize(bucket: "online", token: alice.token, clientID: "phone")
            try await laptop.initialize(bucket: "online", token: alice.token, clientID: "laptop")
            try await phone.send(changeMessage(id: "status", ccid: "p-1", diff: addingDiff(["state": "here"])))
            _ = try await laptop.json(after: "0:c:")

            await phone.close()
            // The laptop, on the other node, still holds alice's presence.
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await keys(one, "online", as: alice) == ["status"])

            await laptop.close()
            try await waitUntil { try await keys(one, "online", as: alice) == [] }
        }
    }

    @Test func theObjectsOfANodeThatIsGoneAreReleasedByTheOther() async throws {
        // Node one's relay stays away once cut: to the database, node one is gone.
        try await TwoNodes.with(reconnectDelay: .seconds(600), limits: { $0.heartbeatTimeoutSeconds = 2 }) { one, two in
            try await setPresence(one, bucket: "player", "client", shared: true)
            let alice = try await one.server.createUser("alice@example.com")
            let bob = try await one.server.createUser("bob@example.com")
            let onOne = try await SocketTestClient.connect(to: one.server)
            defer { Task { await onOne.close() } }
            try await onOne.initialize(bucket: "player", token: alice.token, clientID: "alice-phone")
            try await onOne.send(changeMessage(id: "alice", ccid: "a-1", diff: addingDiff(["name": "alice"])))
            try await waitUntil { try await keys(two, "player", as: bob) == ["alice"] }
            // Two sweeps of node two find it orphaned before it goes: still there at first.
            try await TwoNodes.terminateRelayConnection(of: one)
            let gone = ContinuousClock.now
            try await waitUntil(within: .seconds(15)) { try await keys(two, "player", as: bob) == [] }
            let took = ContinuousClock.now - gone
            #expect(took < .seconds(2) * 2 + .seconds(2), "released \(took) after its node went: past the heartbeat timeout's reach")
        }
    }
}

private func setPresence(_ node: TestNode, bucket: String, _ presence: String, shared: Bool = false) async throws {
    var options: JSONObject = ["presence": .string(presence)]
    if shared { options["shared"] = true }
    let response = try await node.server.request(
        "POST", "/1/\(node.server.appID)/__options__/i/\(bucket)", headers: ["X-Simperium-Token": node.server.app.adminToken],
        body: .object(options))
    #expect(response.status == 200)
}

/// The live objects of a bucket as the user's index on `node` lists them, sorted.
private func keys(_ node: TestNode, _ bucket: String, as user: UserSession) async throws -> [String] {
    let index = try await node.request(user, "GET", "\(bucket)/index?limit=1000")
    return (index.json?["index"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }.sorted()
}
