import Foundation
import LockstepCore
import LockstepServer
import Testing

/// A token revoked on one node is refused, and its sockets closed, on every node.
@Suite("Security: revoking tokens across PostgreSQL nodes", .timeLimit(.minutes(2)))
struct TwoNodeRevocationTests {
    @Test func aTokenRevokedOnOneNodeIsRefusedAndItsSocketsClosedOnTheOther() async throws {
        try await TwoNodes.with { one, two in
            let user = try await one.server.createUser()
            let other = try await one.server.authorize(user)
            let ends = ServerSideEnds(two.server)
            let socket = try await SocketTestClient.connect(to: two.server, app: one.server.appID)
            try await socket.initialize(token: user.token)
            let otherSocket = try await SocketTestClient.connect(to: two.server, app: one.server.appID)
            defer { Task { await otherSocket.close() } }
            try await otherSocket.initialize(token: other.token)
            #expect(try await two.request(user, "GET", "note/index").status == 200)

            #expect(try await one.request(user, "POST", "revoke").status == 200)
            let started = ends.now
            #expect(try await two.request(user, "GET", "note/index").status == 401, "refused at once on the other node")
            let end = try #require(await ends.next())
            #expect(end.reason == .tokenRevoked)
            #expect(end.at - started < 1_000_000_000, "closed \(seconds(end.at - started)) after the revocation")
            _ = await socket.closed()
            try await otherSocket.send("h:1")
            #expect(await otherSocket.next(startingWith: "h:") == "h:2", "the user's other token keeps its socket")
        }
    }
}
