import Foundation
import LockstepCore
import LockstepServer
import Testing

/// A member removed on one PostgreSQL node loses their channels on the other within a second,
/// announced the way changes are (NOTIFY). Runs when `LOCKSTEP_TEST_POSTGRES_URL` is set.
@Suite("Spaces: revocation across PostgreSQL nodes", .timeLimit(.minutes(2)))
struct SpaceTwoNodeTests {
    @Test func aMemberRemovedOnOneNodeLosesTheirChannelsOnTheOther() async throws {
        try await TwoNodes.with { one, two in
            let ann = try await one.server.createUser("ann@example.com")
            let bob = try await one.server.createUser("bob@example.com")
            try await ann.createSpace("job-1")
            try await ann.invite("bob@example.com", as: "writer", to: "job-1")
            let socket = try await SocketTestClient.connect(to: two.server, app: one.server.appID)
            defer { Task { await socket.close() } }
            try await socket.initialize(channel: 0, bucket: "__job-1.items", token: bob.token)
            try await socket.initialize(channel: 1, bucket: "note", token: bob.token)
            #expect(try await one.request(ann, "POST", "__job-1.items/i/before", body: ["n": 0]).status == 200)
            #expect(try await socket.change(channel: 0)["id"] == "before", "the relay carries the space's changes")

            #expect(try await one.request(ann, "DELETE", "__spaces__/job-1/members/bob@example.com").status == 200)
            let answered = one.server.services.clock.now()
            let enforced = try #require(await two.spaceRevocations.next(timeout: .seconds(10)) { _ in true })
            #expect(enforced - answered < 1_000_000_000, "node two ended the channel \(Double(enforced - answered) / 1e9) s after the removal")
            let frame = try #require(await socket.next(startingWith: "0:?:"), "no error frame on node two")
            #expect(frame.contains("you were removed from space job-1"), "\(frame)")
            #expect(try await two.request(bob, "GET", "__job-1.items/i/before").status == 404, "refused at once on the other node")

            #expect(try await one.request(ann, "POST", "__job-1.items/i/after", body: ["n": 1]).status == 200)
            #expect(try await one.request(bob, "POST", "note/i/mine", body: ["a": 1]).status == 200)
            #expect(try await socket.change(channel: 1)["id"] == "mine", "the socket and its other channel stay")
            #expect(!socket.mailbox.drain().contains { $0.hasPrefix("0:c:") }, "nothing reached the ended channel after its frame")
        }
    }

    @Test func aRemovalMissedWhileTheRelayWasAwayIsFoundWhenItListensAgain() async throws {
        try await TwoNodes.with(heartbeatTimeout: .milliseconds(500)) { one, two in
            let ann = try await one.server.createUser("ann@example.com")
            let bob = try await one.server.createUser("bob@example.com")
            try await ann.createSpace("job-1")
            try await ann.invite("bob@example.com", as: "writer", to: "job-1")
            let socket = try await SocketTestClient.connect(to: two.server, app: one.server.appID)
            defer { Task { await socket.close() } }
            try await socket.initialize(bucket: "__job-1.items", token: bob.token)

            // Node two's listening backend stops answering: the removal's notification is lost with it.
            let frozen = try await TwoNodes.freezeRelayBackend(of: two)
            defer { kill(frozen, SIGCONT) }
            #expect(try await one.request(ann, "DELETE", "__spaces__/job-1/members/bob@example.com").status == 200)
            let replaced = await completes(within: .seconds(15)) { await two.relay.waitUntilListening(generation: 2) }
            kill(frozen, SIGCONT)
            #expect(replaced)
            let frame = try #require(await socket.next(startingWith: "0:?:"), "the channel outlived a removal its node missed")
            #expect(frame.contains("you were removed from space job-1"), "\(frame)")
        }
    }
}
