import Foundation
import LockstepCore
import LockstepServer
import Testing

/// One account, one name: however it is spelled (case, Unicode composition), and never with
/// a control character that a layer below would read differently.
@Suite("Security: usernames", .timeLimit(.minutes(2)))
struct UsernameTests {
    static let decomposed = "zoe\u{0308}@example.com"  // "zoë" as e + combining diaeresis
    static let composed = "zo\u{00EB}@example.com"

    @Test func namesHaveOneCanonicalFormAndRefuseControlCharacters() throws {
        #expect(try Username("Alice@Example.COM").canonical == "alice@example.com")
        #expect(try Username(Self.decomposed).canonical == Username(Self.composed.uppercased()).canonical)
        #expect(try Username(Self.decomposed).display == Self.composed, "stored as typed, in NFC")
        #expect(Username.canonical("İstanbul") == Username.canonical("i̇stanbul"))
        for bad in ["victim@example.com\u{0}zz", "a\tb", "a\u{7f}", "a\u{2028}b", "line\nbreak", "", String(repeating: "x", count: 257)] {
            #expect(throws: AccountError.self, "\(bad.debugDescription)") { try Username(bad) }
        }
        #expect(throws: AccountError.self) { try Username("42") }
    }

    @Test func aNULSuffixNeitherSignsInNorEscapesTheThrottle() async throws {
        var limits = TestServer.testLimits
        limits.passwordAttemptsPerMinute = 3
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        _ = try await server.createUser("victim@example.com", password: "right")
        let withNUL = try await server.authorizeResponse("victim@example.com\u{0}zz", "right")
        #expect(withNUL.status == 400, "\(withNUL)")
        #expect(withNUL.errorMessage?.contains("U+0000") == true, "\(withNUL)")
        #expect(withNUL.json?["access_token"] == nil)
        let created = try await server.request(
            "POST", "/1/\(server.appID)/create/", headers: ["X-Simperium-API-Key": server.app.apiKey],
            body: ["username": "victim@example.com\u{0}x", "password": "mine"])
        #expect(created.status == 400, "\(created)")
    }

    @Test func theThrottleCountsEverySpellingOfAName() async throws {
        var limits = TestServer.testLimits
        limits.passwordAttemptsPerMinute = 3
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        _ = try await server.createUser(Self.composed, password: "right")
        let spellings = [Self.composed, Self.composed.uppercased(), Self.decomposed, "Zo\u{00CB}@Example.com"]
        var statuses: [Int] = []
        let started = ContinuousClock.now
        for index in 0..<12 { statuses.append(try await server.authorizeStatus(spellings[index % spellings.count], "guess")) }
        // A budget of 6 at once (twice the minute's), then one more every 20 s: a loaded machine
        // that takes 20 s over these requests has earned one more by then (a full suite beside a
        // load generator took 90 s), and every other attempt is refused, whatever its spelling.
        let earned = Int((ContinuousClock.now - started) / .seconds(20))
        #expect(statuses.prefix(6).allSatisfy { $0 == 401 }, "\(statuses)")
        #expect(statuses.suffix(6).filter { $0 != 429 }.count <= earned, "\(statuses) in \(ContinuousClock.now - started)")
    }

    @Test func signInAndUniquenessIgnoreCaseAndComposition() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let alice = try await server.createUser("Alice@Example.com", password: "pw")
        let signedIn = try await server.authorizeResponse("alice@EXAMPLE.com", "pw")
        #expect(signedIn.json?["userid"]?.stringValue == alice.userID)
        #expect(signedIn.json?["username"] == "Alice@Example.com", "the name as chosen")
        for taken in ["alice@example.com", "ALICE@EXAMPLE.COM"] {
            let response = try await server.request(
                "POST", "/1/\(server.appID)/create/", headers: ["X-Simperium-API-Key": server.app.apiKey],
                body: ["username": .string(taken), "password": "pw"])
            #expect(response.status == 409, "\(taken): \(response)")
        }
        let zoe = try await server.createUser(Self.decomposed, password: "pw")
        #expect(try await server.authorizeResponse(Self.composed, "pw").json?["userid"]?.stringValue == zoe.userID)
        let issued = try await server.request(
            "POST", "/1/\(server.appID)/token/", headers: ["X-Simperium-Token": server.app.adminToken],
            body: ["username": .string(Self.composed.uppercased())])
        #expect(issued.json?["userid"]?.stringValue == zoe.userID, "the admin's tokens go to the same account")
        let refused = try await server.request(
            "POST", "/1/\(server.appID)/token/", headers: ["X-Simperium-Token": server.app.adminToken],
            body: ["username": "bad\u{1}name"])
        #expect(refused.status == 400)
    }

    /// Accounts made before names were compared canonically may collide: they are kept apart,
    /// each signing in by its exact name, and reported, never merged.
    @Test(arguments: StoreKind.allCases)
    func accountsThatCollideFromBeforeAreKeptApartAndReported(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            // As an older server left them: no canonical name.
            for (id, name, created) in [("u1", "Alice", 1), ("u2", "alice", 2), ("u3", "ALICE", 3), ("u4", "bob", 4)] {
                try await RawRows.execute(kind, store, """
                    INSERT INTO users (app_id, id, username, password_hash, created_at) VALUES ('\(app)', '\(id)', '\(name)', NULL, \(created))
                    """)
            }
            try await TestStores.reopening(kind, store) { reopened in
                let collisions = try await reopened.usernameCollisions()
                #expect(collisions.map(\.username) == ["alice", "ALICE"])
                #expect(collisions.allSatisfy { $0.collidesWith == "Alice" && $0.appID == app })
                #expect(try await reopened.user(appID: app, username: "alice")?.id == "u2")
                #expect(try await reopened.user(appID: app, username: "ALICE")?.id == "u3")
                #expect(try await reopened.user(appID: app, username: "aLiCe")?.id == "u1", "any other spelling is the oldest's")
                #expect(try await reopened.user(appID: app, username: "BOB")?.id == "u4")
                await #expect(throws: StoreError.self) {
                    try await reopened.insertUser(UserRecord(appID: app, id: "u5", username: "alicE", passwordHash: nil, createdAt: 5))
                }
            }
        }
    }
}

extension TestServer {
    func authorizeResponse(_ username: String, _ password: String) async throws -> TestResponse {
        try await request(
            "POST", "/1/\(appID)/authorize/", headers: ["X-Simperium-API-Key": app.apiKey],
            body: ["username": .string(username), "password": .string(password)])
    }
}
