import LockstepCore
import LockstepServer
import Testing

/// `GET /1/{app}/{bucket}/peerkey`: one key per scope, for exactly the users whose
/// credentials reach that scope.
@Suite("Peer keys")
struct PeerKeyTests {
    @Test("users of a shared bucket get one key; a user's own bucket has a key of its own; others are refused")
    func keysFollowScopes() async throws {
        let server = try await TestServer.start()
        let admin = ["X-Simperium-Token": server.app.adminToken]
        for (bucket, options) in [("team", ["shared": true]), ("catalog", ["shared": true, "read_only": true])] as [(String, JSONValue)] {
            let set = try await server.request("POST", "/1/\(server.appID)/__options__/i/\(bucket)", headers: admin, body: options)
            #expect(set.status == 200)
        }
        let (alice, bob) = (try await server.createUser(), try await server.createUser())
        func key(_ user: UserSession, _ bucket: String) async throws -> String? {
            let response = try await user.request("GET", "\(bucket)/peerkey")
            return response.status == 200 ? response.json?["key"]?.stringValue : nil
        }

        let team = try #require(try await key(alice, "team"))
        #expect(team.count == 64)
        #expect(try await key(bob, "team") == team)
        #expect(try await key(alice, "team") == team, "the app's secret is drawn once")
        let aliceNotes = try #require(try await key(alice, "notes"))
        let bobNotes = try #require(try await key(bob, "notes"))
        #expect(aliceNotes != bobNotes && aliceNotes != team)

        let readOnly = try await alice.request("GET", "catalog/peerkey")
        #expect(readOnly.status == 403)
        let anonymous = try await server.request("GET", "/1/\(server.appID)/team/peerkey")
        #expect(anonymous.status == 401)
        let badName = try await alice.request("GET", "__options__/peerkey")
        #expect(badName.status == 400)
        await server.stop()
    }
}
