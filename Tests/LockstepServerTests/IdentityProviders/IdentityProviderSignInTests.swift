import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// A JWT of the app's identity provider (PEM keys here; the JWKS suite fetches them) against a
/// real server: accepted wherever a token is, as a user made on first sight.
@Suite("Identity providers: signing in with a JWT", .timeLimit(.minutes(3)))
struct IdentityProviderSignInTests {
    static func server(limits: Limits = TestServer.testLimits, trusting signers: [TestSigner]) async throws -> TestServer {
        let server = try await TestServer.start(limits: limits)
        try await server.services.accounts.identityProviders.set(appID: server.appID, settings: TestSigner.settings(signers))
        return server
    }

    @Test func aJWTIsATokenInEveryPlaceAndItsUserIsMadeOnce() async throws {
        let signer = TestSigner.p256()
        let server = try await Self.server(trusting: [signer])
        defer { Task { await server.stop() } }
        let token = try signer.token(TestSigner.claims(sub: "auth0|42", ["email": "Ada@Example.com"]))
        let path = "/1/\(server.appID)/note/i/first"
        let written = try await server.request("POST", path, headers: ["X-Simperium-Token": token], body: ["n": 1])
        #expect(written.status == 200, "\(written)")
        let read = try await server.request("GET", path, headers: ["Authorization": "Bearer \(token)"])
        #expect(read.status == 200, "\(read)")
        #expect(read.json?["n"] == 1)
        let socket = try await SocketTestClient.connect(to: server)
        #expect(try await socket.initialize(token: token) == "Ada@Example.com", "the email claim is the username")
        // Another token of the same subject (no email this time) is the same user.
        let again = try signer.token(TestSigner.claims(sub: "auth0|42"))
        #expect(try await server.request("GET", path, headers: ["X-Simperium-Token": again]).json?["n"] == 1)
        let user = try #require(try await server.services.store.user(appID: server.appID, username: "ada@example.com"))
        #expect(user.passwordHash == nil)
        #expect(user.id == IdentityProviders.userID(issuer: TestSigner.issuer, subject: "auth0|42"))
        // Another subject is another user, who cannot read the first one's note.
        let stranger = try signer.token(TestSigner.claims(sub: "auth0|43"))
        #expect(try await server.request("GET", path, headers: ["X-Simperium-Token": stranger]).status == 404)
        // Lockstep's own tokens go on as before, in both headers.
        let session = try await server.createUser()
        #expect(try await session.request("POST", "note/i/mine", body: ["k": 1]).status == 200)
        #expect(try await server.request("GET", "/1/\(server.appID)/note/i/mine", headers: ["Authorization": "bearer \(session.token)"]).status == 200)
    }

    @Test func aJWTUserJoinsSpacesByTheirEmailAsAPasswordUserDoes() async throws {
        let signer = TestSigner.ed25519()
        let server = try await Self.server(trusting: [signer])
        defer { Task { await server.stop() } }
        let owner = try await server.createUser("owner@example.com")
        #expect(try await owner.request("POST", "__spaces__", body: ["name": "job-1"]).status == 201)
        #expect(try await owner.request("POST", "__spaces__", body: ["name": "job-2"]).status == 201)
        // Invited before their first sign-in: the invitation waits for the address.
        #expect(try await owner.request("POST", "__spaces__/job-1/members", body: ["email": "Crew@Example.com", "role": "writer"]).status == 200)
        let token = try signer.token(TestSigner.claims(sub: "crew-7", ["email": "crew@example.com"]))
        let headers = ["X-Simperium-Token": token]
        let spaces = try await server.request("GET", "/1/\(server.appID)/__spaces__", headers: headers)
        #expect(spaces.json?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["job-1"], "\(spaces)")
        // Invited once known: found by the same address.
        #expect(try await owner.request("POST", "__spaces__/job-2/members", body: ["email": "crew@example.com", "role": "reader"]).status == 200)
        let both = try await server.request("GET", "/1/\(server.appID)/__spaces__", headers: headers)
        #expect(Set(both.json?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []) == ["job-1", "job-2"], "\(both)")
    }

    @Test func anEmailThatIsAnotherUsersNameIsRefusedNotTakenOver() async throws {
        let signer = TestSigner.rsa()
        let server = try await Self.server(trusting: [signer])
        defer { Task { await server.stop() } }
        _ = try await server.createUser("taken@example.com")
        let token = try signer.token(TestSigner.claims(sub: "someone", ["email": "taken@example.com"]))
        let answer = try await server.request("GET", "/1/\(server.appID)/note/i/x", headers: ["X-Simperium-Token": token])
        #expect(answer.status == 409, "\(answer)")
        #expect(answer.errorMessage?.contains("another user") == true, "\(answer)")
    }

    /// `exp` closes the socket as a Lockstep token's expiry does (a timer on its event loop),
    /// and a revocation elsewhere, which makes every node look at the tokens its sockets hold,
    /// does not take a JWT (which the store does not hold) for a revoked one.
    @Test func aJWTsSocketClosesAtExpAndOnlyThen() async throws {
        let signer = TestSigner.p256()
        var limits = TestServer.testLimits
        limits.tokenCheckIntervalSeconds = 0.05
        let server = try await Self.server(limits: limits, trusting: [signer])
        defer { Task { await server.stop() } }
        let ends = ServerSideEnds(server)
        let now = Date()
        let exp = Int64(now.timeIntervalSince1970) + 4
        let token = try signer.token(TestSigner.claims(now: now, ["exp": .integer(exp)]))
        let socket = try await SocketTestClient.connect(to: server)
        #expect(try await socket.initialize(token: token, follow: false) == "user-1")
        let other = try await server.createUser()
        #expect(try await other.request("POST", "revoke").status == 200)
        // The watch has looked at the held tokens since the revocation, and left this one.
        try await Task.sleep(for: .milliseconds(300))
        let (reason, closedAt) = try #require(await ends.next(), "the socket was not closed")
        #expect(reason == .tokenExpired)
        let late = closedAt - exp * 1_000_000_000
        #expect(late >= 0 && late < 1_000_000_000, "closed \(seconds(late)) after exp")
        _ = await socket.closed()
    }

    @Test func aJWTIsNotRevokedHereAndClearingTheProviderRefusesNewOnes() async throws {
        let signer = TestSigner.rsa()
        let server = try await Self.server(trusting: [signer])
        defer { Task { await server.stop() } }
        let token = try signer.token(TestSigner.claims())
        let revoke = try await server.request("POST", "/1/\(server.appID)/revoke", headers: ["X-Simperium-Token": token])
        #expect(revoke.status == 403, "\(revoke)")
        #expect(revoke.errorMessage?.contains("holds until its exp") == true)
        let admin = ["X-Simperium-Token": server.app.adminToken]
        #expect(try await server.request("DELETE", "/1/\(server.appID)/__admin__/jwt", headers: admin).status == 204)
        let refused = try await server.request("GET", "/1/\(server.appID)/note/i/x", headers: ["X-Simperium-Token": token])
        #expect(refused.status == 401)
        #expect(refused.errorMessage?.contains("accepts no JWTs") == true, "\(refused)")
        #expect(try await server.request("GET", "/1/\(server.appID)/__admin__/jwt", headers: admin).status == 404)
    }

    @Test func theAdminAPISetsShowsAndClearsTheProviderForTheAdminAlone() async throws {
        let signer = TestSigner.ed25519()
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let admin = ["X-Simperium-Token": server.app.adminToken]
        let settings: JSONValue = [
            "issuer": .string(TestSigner.issuer), "audience": .string(TestSigner.audience),
            "publicKeys": [["kid": .string(signer.kid), "pem": .string(signer.publicPEM)]], "emailClaim": "mail",
        ]
        let set = try await server.request("PUT", "/1/\(server.appID)/__admin__/jwt", headers: admin, body: settings)
        #expect(set.status == 200, "\(set)")
        #expect(set.json?["keys"]?[0]?["alg"] == "EdDSA")
        let shown = try await server.request("GET", "/1/\(server.appID)/__admin__/jwt", headers: admin)
        #expect(shown.json?["emailClaim"] == "mail")
        let user = try await server.createUser()
        #expect(try await user.request("GET", "__admin__/jwt").status == 403)
        let token = try signer.token(TestSigner.claims(["mail": "m@example.com"]))
        #expect(try await server.request("GET", "/1/\(server.appID)/note/i/x", headers: ["X-Simperium-Token": token]).status == 404)
        let wrong = try await server.request("PUT", "/1/\(server.appID)/__admin__/jwt", headers: admin, body: ["issuer": "i", "audience": "a"])
        #expect(wrong.status == 400)
        #expect(wrong.errorMessage?.contains("jwksUrl") == true, "\(wrong)")
    }
}
