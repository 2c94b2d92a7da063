import LockstepCore
import LockstepServer
import Testing

@Suite("HTTP auth: create, authorize, tokens")
struct AuthTests {
    @Test func createThenAuthorizeGivesWorkingTokens() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let alice = try await server.createUser("alice@example.com", password: "pw")
        #expect(alice.token.count == 32)
        let authorized = try await server.request(
            "POST", "/1/\(server.appID)/authorize/", headers: ["X-Simperium-API-Key": server.app.apiKey],
            body: ["username": "alice@example.com", "password": "pw"])
        #expect(authorized.status == 200)
        #expect(authorized.json?["userid"]?.stringValue == alice.userID)
        let second = try #require(authorized.json?["access_token"]?.stringValue)
        #expect(second != alice.token)
        for (number, token) in [alice.token, second].enumerated() {
            let response = try await server.request(
                "POST", "/1/\(server.appID)/note/i/n1", headers: ["X-Simperium-Token": token], body: ["a": .integer(Int64(number))])
            #expect(response.status == 200)
        }
    }

    @Test func refusesBadCredentialsWithClearErrors() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.createUser("bob@example.com", password: "right")
        let path = "/1/\(server.appID)/"
        let cases: [(String, [String: String], JSONValue?, Int, String)] = [
            (path + "authorize/", ["X-Simperium-API-Key": server.app.apiKey], ["username": "bob@example.com", "password": "wrong"], 401, "wrong"),
            (path + "authorize/", ["X-Simperium-API-Key": "nope"], ["username": "bob@example.com", "password": "right"], 401, "API key"),
            (path + "create/", ["X-Simperium-API-Key": server.app.apiKey], ["username": "bob@example.com", "password": "x"], 409, "taken"),
            (path + "create/", ["X-Simperium-API-Key": server.app.apiKey], ["username": "42", "password": "x"], 400, "JSON"),
            (path + "create/", ["X-Simperium-API-Key": server.app.apiKey], ["username": "carol"], 400, "password"),
            ("/1/no-such-app/create/", ["X-Simperium-API-Key": server.app.apiKey], ["username": "d", "password": "x"], 404, "no app"),
        ]
        for (target, headers, body, status, words) in cases {
            let response = try await server.request("POST", target, headers: headers, body: body)
            #expect(response.status == status, "\(target) \(String(describing: body))")
            #expect(response.errorMessage?.contains(words) == true, "\(response)")
        }
    }

    @Test func badOrExpiredTokensAreRefused() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        #expect(try await user.request("GET", "note/index").status == 200)
        let forged = try await server.request("GET", "/1/\(server.appID)/note/index", headers: ["X-Simperium-Token": "0123456789abcdef0123456789abcdef"])
        #expect(forged.status == 401)
        let missing = try await server.request("GET", "/1/\(server.appID)/note/index")
        #expect(missing.status == 401)
        #expect(missing.errorMessage?.contains("X-Simperium-Token") == true)
        // A token whose lifetime ended a moment ago.
        let expiredToken = Secrets.randomHex()
        let now = server.services.clock.now()
        try await server.services.store.insertToken(TokenRecord(
            tokenHash: Secrets.hash(expiredToken), appID: server.appID, userID: user.userID, createdAt: now - 10_000_000_000,
            expiresAt: now - 1_000_000))
        let expired = try await server.request("GET", "/1/\(server.appID)/note/index", headers: ["X-Simperium-Token": expiredToken])
        #expect(expired.status == 401)
        #expect(expired.errorMessage?.contains("expired") == true)
    }

    @Test func tokensLastTheConfiguredLifetime() async throws {
        var limits = TestServer.testLimits
        limits.tokenLifetimeSeconds = 3600
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let record = try #require(try await server.services.store.token(hash: Secrets.hash(user.token)))
        #expect(record.expiresAt.map { $0 - record.createdAt } == 3_600_000_000_000)
    }

    @Test func adminIssuesTokensForUsersWithoutPasswords() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let issued = try await server.request(
            "POST", "/1/\(server.appID)/token/", headers: ["X-Simperium-Token": server.app.adminToken], body: ["username": "player-1"])
        #expect(issued.status == 200)
        let token = try #require(issued.json?["access_token"]?.stringValue)
        let write = try await server.request(
            "POST", "/1/\(server.appID)/player/i/me", headers: ["X-Simperium-Token": token], body: ["name": "x"])
        #expect(write.status == 200)
        let user = try await server.createUser()
        let refused = try await server.request(
            "POST", "/1/\(server.appID)/token/", headers: ["X-Simperium-Token": user.token], body: ["username": "player-2"])
        #expect(refused.status == 403)
    }

    @Test func passwordsAreStoredHashedAndTokensOnlyAsHashes() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser("eve@example.com", password: "correct horse")
        let record = try #require(try await server.services.store.user(appID: server.appID, username: "eve@example.com"))
        let hash = try #require(record.passwordHash)
        #expect(hash.hasPrefix("scrypt$"))
        #expect(!hash.contains("correct horse"))
        #expect(try await server.services.store.token(hash: user.token) == nil)
        #expect(try await server.services.store.token(hash: Secrets.hash(user.token)) != nil)
    }
}

@Suite("Rate limits")
struct RateLimitTests {
    @Test func requestsPastTheRateGet429() async throws {
        var limits = TestServer.testLimits
        // One per second, bursts of two: of 30 quick requests, most are refused.
        limits.httpRequestsPerSecond = 1
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        var statuses: [Int] = []
        let started = ContinuousClock.now
        for _ in 0..<30 { statuses.append(try await user.request("GET", "note/index").status) }
        // However slow the machine, no more pass than the burst plus the rate times the time taken.
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        #expect(Double(statuses.filter { $0 == 200 }.count) <= 2 + elapsed.rounded(.up))
        #expect(statuses.contains(429))
        #expect(statuses.prefix(2).allSatisfy { $0 == 200 })
        // Another caller is not affected.
        let other = try await server.createUser()
        #expect(try await other.request("GET", "note/index").status == 200)
    }

    @Test func passwordGuessingIsThrottledPerUsername() async throws {
        var limits = TestServer.testLimits
        limits.passwordAttemptsPerMinute = 3
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        _ = try await server.createUser("gina@example.com", password: "right")
        var statuses: [Int] = []
        for _ in 0..<10 {
            let response = try await server.request(
                "POST", "/1/\(server.appID)/authorize/", headers: ["X-Simperium-API-Key": server.app.apiKey],
                body: ["username": "gina@example.com", "password": "guess"])
            statuses.append(response.status)
        }
        #expect(statuses.prefix(6) == [401, 401, 401, 401, 401, 401])
        #expect(statuses.suffix(4).allSatisfy { $0 == 429 })
    }
}
