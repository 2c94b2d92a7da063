import Foundation
import LockstepCore
import LockstepServer
import Testing

/// The `user` field of a socket's `init`: the admin token opens that user's bucket (the console
/// follows a user's bucket so), and any other token's `user` is ignored: a user never reaches
/// another user's objects by naming them.
@Suite("Streaming socket: init naming a user", .timeLimit(.minutes(1)))
struct SocketActingUserTests {
    @Test func onlyTheAdminTokenOpensTheBucketOfTheUserItNames() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser("ann@example.com")
        let eve = try await server.createUser("eve@example.com")
        #expect(try await ann.request("POST", "note/i/secret", body: ["text": "ann's"]).status == 200)
        #expect(try await eve.request("POST", "note/i/own", body: ["text": "eve's"]).status == 200)

        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }
        // Eve names Ann: she gets her own bucket, as herself.
        let eveAuth = try await client.initialize(channel: 0, token: eve.token, extra: ["user": .string(ann.userID)], follow: false)
        #expect(eveAuth == "eve@example.com")
        let eveIndex = try await client.walkIndex(channel: 0)
        #expect(eveIndex.entries.compactMap { $0["id"]?.stringValue } == ["own"])

        // The admin token naming Ann reads Ann's bucket.
        let adminAuth = try await client.initialize(
            channel: 1, token: server.app.adminToken, extra: ["user": .string(ann.userID)], follow: false)
        #expect(adminAuth == "ann@example.com")
        let annIndex = try await client.walkIndex(channel: 1)
        #expect(annIndex.entries.compactMap { $0["id"]?.stringValue } == ["secret"])

        // A user who does not exist is refused.
        let unknown = try await client.initialize(channel: 2, token: server.app.adminToken, extra: ["user": "0000"], follow: false)
        #expect(unknown.hasPrefix("{") && unknown.contains("there is no user 0000"), "\(unknown)")
    }
}
