import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// An app's identity provider as a real process (identity_provider.py): its JWKS fetched over
/// HTTPS under a private CA the server is told to trust, its keys rotated while clients stay
/// signed in, and every forgery it can make refused with its reason.
@Suite(
    "Identity providers: a JWKS over HTTPS", .timeLimit(.minutes(4)),
    .enabled(if: IdentityProviderProcess.isAvailable || ExternalTool.isCI, "needs python3 with pyjwt and cryptography"))
struct JWKSProviderTests {
    /// A provider, and a server that trusts its CA and takes its JWKS.
    static func start(
        limits: Limits = TestServer.testLimits, _ body: (IdentityProviderProcess, TestServer) async throws -> Void
    ) async throws {
        let provider = try await IdentityProviderProcess.start()
        let server = try await TestServer.start(limits: allowingLoopback(limits), jwksCertificateAuthorities: provider.caFile)
        do {
            let set = try await server.request(
                "PUT", "/1/\(server.appID)/__admin__/jwt", headers: ["X-Simperium-Token": server.app.adminToken],
                body: ["issuer": "https://id.test.example/", "audience": "lockstep-tests", "jwksUrl": .string(provider.jwksURL)])
            guard set.status == 200 else { throw IdentityProviderError("the provider was not set: \(set)") }
            try await body(provider, server)
        } catch {
            await server.stop()
            await provider.stop()
            throw error
        }
        await server.stop()
        await provider.stop()
    }

    /// `limits` with JWKS fetches allowed on loopback, where the test provider listens
    /// (`serve --jwks-allow-private`); a server refuses it otherwise.
    static func allowingLoopback(_ limits: Limits = TestServer.testLimits) -> Limits {
        var limits = limits
        limits.jwksAllowPrivateAddresses = true
        return limits
    }

    static func get(_ server: TestServer, token: String) async throws -> TestResponse {
        try await server.request("GET", "/1/\(server.appID)/note/i/x", headers: ["Authorization": "Bearer \(token)"])
    }

    @Test func keysRotateWhileClientsStaySignedIn() async throws {
        try await Self.start { provider, server in
            let old = try await provider.mint()
            let socket = try await SocketTestClient.connect(to: server)
            #expect(try await socket.initialize(token: old) == "user-1")
            try await socket.send("0:c:\(JSONValue.object(["id": "x", "ccid": "c1", "o": "M", "v": addingDiff(["n": 1])]))")
            #expect(try await socket.change()["ccids"] == ["c1"], "the change before the rotation")
            let fetchesBefore = try await provider.fetches()
            let kid = try await provider.rotate()
            let new = try await provider.mint(kid: kid)
            // The new kid is unknown to the cached JWKS: fetched again, once, and accepted.
            #expect(try await Self.get(server, token: new).status == 200)
            #expect(try await provider.fetches() == fetchesBefore + 1)
            let second = try await SocketTestClient.connect(to: server)
            #expect(try await second.initialize(token: new, clientID: "second") == "user-1")
            // The old token still works, and the socket opened with it never closed.
            #expect(try await Self.get(server, token: old).status == 200)
            try await socket.send("0:c:\(JSONValue.object(["id": "y", "ccid": "c2", "o": "M", "v": addingDiff(["n": 2])]))")
            #expect(try await socket.change()["ccids"] == ["c2"], "the first socket is still up")
            #expect(server.services.connections.count == 2)
        }
    }

    @Test func anUnknownKidFetchesTheJWKSAtMostOncePerInterval() async throws {
        var limits = TestServer.testLimits
        limits.jwksUnknownKeyRefreshSeconds = 60
        try await Self.start(limits: limits) { provider, server in
            let before = try await provider.fetches()
            for attempt in 1...3 {
                let forged = try await provider.mint(kid: "made-up-\(attempt)", ["signWith": "rsa-1"])
                let answer = try await Self.get(server, token: forged)
                #expect(answer.status == 401)
                #expect(answer.errorMessage?.contains("\"made-up-\(attempt)\" is not a key of the app's identity provider") == true, "\(answer)")
            }
            #expect(try await provider.fetches() == before + 1, "one fetch for three unknown kids within a minute")
        }
    }

    @Test func anUnreachableProviderKeepsTheKeysItServed() async throws {
        var limits = TestServer.testLimits
        limits.jwksRefreshSeconds = 0.2
        limits.jwksUnknownKeyRefreshSeconds = 0.2
        try await Self.start(limits: limits) { provider, server in
            let token = try await provider.mint(kid: "ec-1")
            #expect(try await Self.get(server, token: token).status == 404, "signed in; the note does not exist")
            try await provider.setDown(true)
            let before = try await provider.fetches()
            // Stale now: each check starts a fetch in the background, which fails; the keys stay.
            try await waitUntil(within: .seconds(20)) {
                #expect(try await Self.get(server, token: token).status == 404)
                return try await provider.fetches() > before + 1
            }
            let shown = try await server.request(
                "GET", "/1/\(server.appID)/__admin__/jwt", headers: ["X-Simperium-Token": server.app.adminToken])
            #expect(shown.json?["jwks"]?["lastError"]?.stringValue?.contains("503") == true, "\(shown)")
            #expect(shown.json?["jwks"]?["keys"]?.arrayValue?.count == 3)
        }
    }

    /// Each forgery the issue names, made by the provider process with pyjwt, over HTTP and
    /// over a socket's init, refused with a 401 that says which check failed.
    @Test func eachAttackIsRefusedWithItsReason() async throws {
        try await Self.start { provider, server in
            let attacks: [(String, String)] = [
                (try await provider.mint(["alg": "none"]), "alg is none"),
                (try await provider.mint(kid: "rsa-1", ["alg": "HS256"]), "HMAC"),
                (try await provider.mint(kid: "ec-1", ["alg": "RS256", "signWith": "rsa-1"]), "is an EC P-256 key, which verifies ES256 only"),
                (try await provider.mint(kid: "unknown", ["signWith": "rsa-1"]), "\"unknown\" is not a key"),
                (try await provider.mint(claims: ["iss": "https://evil.example/"]), "issuer is \"https://evil.example/\""),
                (try await provider.mint(claims: ["aud": "another-app"]), "audience is \"another-app\""),
                (try await provider.mint(["tamper": "user-2"]), "signature does not match"),
                (try await provider.mint(claims: ["exp": .integer(Int64(Date().timeIntervalSince1970) - 5)]), "expired"),
                (try await provider.mint(claims: ["nbf": .integer(Int64(Date().timeIntervalSince1970) + 600)]), "not valid before"),
            ]
            let socket = try await SocketTestClient.connect(to: server)
            for (number, (token, reason)) in attacks.enumerated() {
                let answer = try await Self.get(server, token: token)
                #expect(answer.status == 401, "\(reason): \(answer)")
                #expect(answer.errorMessage?.contains(reason) == true, "\(reason): \(answer)")
                let auth = try await socket.initialize(channel: number, token: token, follow: false)
                let refusal = try JSONValue(parsing: auth)
                #expect(refusal["code"] == 401, "\(reason): \(auth)")
                #expect(refusal["msg"]?.stringValue?.contains(reason) == true, "\(reason): \(auth)")
            }
            #expect(try await server.services.store.user(appID: server.appID, username: "user-2") == nil)
        }
    }

    @Test func aProviderWhoseCertificateIsNotTrustedIsRefusedWhenSet() async throws {
        let provider = try await IdentityProviderProcess.start()
        let server = try await TestServer.start(limits: Self.allowingLoopback())
        defer {
            Task {
                await server.stop()
                await provider.stop()
            }
        }
        let set = try await server.request(
            "PUT", "/1/\(server.appID)/__admin__/jwt", headers: ["X-Simperium-Token": server.app.adminToken],
            body: ["issuer": "https://id.test.example/", "audience": "lockstep-tests", "jwksUrl": .string(provider.jwksURL)])
        #expect(set.status == 400, "\(set)")
        #expect(set.errorMessage?.contains("TLS") == true, "\(set)")
        #expect(try await server.services.store.identityProvider(appID: server.appID) == nil)
    }

    /// A server must not be a way into its own network: a JWKS URL on a loopback address (by
    /// address or by a name that resolves to one) is refused when it is set, without a request,
    /// unless the server allows private addresses; the same check as webhook endpoints'.
    @Test func aProviderOnALoopbackAddressIsRefusedUnlessAllowed() async throws {
        let provider = try await IdentityProviderProcess.start()
        let server = try await TestServer.start(jwksCertificateAuthorities: provider.caFile)
        defer {
            Task {
                await server.stop()
                await provider.stop()
            }
        }
        let fetchesBefore = try await provider.fetches()
        for url in [provider.jwksURL, provider.jwksURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")] {
            let set = try await server.request(
                "PUT", "/1/\(server.appID)/__admin__/jwt", headers: ["X-Simperium-Token": server.app.adminToken],
                body: ["issuer": "https://id.test.example/", "audience": "lockstep-tests", "jwksUrl": .string(url)])
            #expect(set.status == 400, "\(url): \(set)")
            #expect(set.errorMessage?.contains("loopback address") == true, "\(url): \(set)")
            #expect(set.errorMessage?.contains("--jwks-allow-private") == true, "\(url): \(set)")
        }
        #expect(try await provider.fetches() == fetchesBefore, "nothing was asked of the provider")
        #expect(try await server.services.store.identityProvider(appID: server.appID) == nil)
        // Allowed, a name is fetched from the address it was checked at, its certificate
        // verified against the name.
        let allowing = try await TestServer.start(limits: Self.allowingLoopback(), jwksCertificateAuthorities: provider.caFile)
        defer { Task { await allowing.stop() } }
        let set = try await allowing.request(
            "PUT", "/1/\(allowing.appID)/__admin__/jwt", headers: ["X-Simperium-Token": allowing.app.adminToken],
            body: [
                "issuer": "https://id.test.example/", "audience": "lockstep-tests",
                "jwksUrl": .string(provider.jwksURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")),
            ])
        #expect(set.status == 200, "\(set)")
        #expect(try await provider.fetches() == fetchesBefore + 1)
    }
}
