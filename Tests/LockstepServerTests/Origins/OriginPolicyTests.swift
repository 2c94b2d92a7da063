import LockstepServer
import Testing

/// How origins are listed and how a request's `Origin` and `Host` are judged.
@Suite("Origins: the policy")
struct OriginPolicyTests {
    @Test func listedOriginsAreWrittenAsBrowsersWriteThem() throws {
        let policy = try OriginPolicy(
            allowing: ["HTTPS://Portal.Example.com/", "http://127.0.0.1:8081", "https://shop.example.com:443"],
            admin: ["https://office.example.com"])
        #expect(policy.allowed == [
            "https://portal.example.com", "http://127.0.0.1:8081", "https://shop.example.com", "https://office.example.com",
        ])
        #expect(policy.allowedForAdmin == ["https://office.example.com"])
    }

    @Test(arguments: ["portal.example.com", "https://portal.example.com/app", "ftp://portal.example.com", "null", "*",
        "https://user@portal.example.com", "https://portal.example.com?x=1", "https://"])
    func whatIsNoOriginIsRefusedNamingIt(_ entry: String) {
        #expect(throws: OriginError.self) { try OriginPolicy(allowing: [entry]) }
        #expect((try? OriginPolicy(allowing: [], admin: [entry])) == nil)
    }

    @Test func aRequestIsJudgedByItsOriginAgainstTheHostItWasSentTo() throws {
        let policy = try OriginPolicy(allowing: ["https://portal.example.com", "http://[::1]:8081"], admin: ["https://office.example.com"])
        #expect(policy.caller(origin: nil, host: "sync.example.com") == .native)
        #expect(policy.caller(origin: "https://sync.example.com", host: "sync.example.com") == .sameOrigin)
        #expect(policy.caller(origin: "https://sync.example.com", host: "sync.example.com:443") == .sameOrigin)
        #expect(policy.caller(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080") == .sameOrigin)
        #expect(policy.caller(origin: "http://127.0.0.1:8081", host: "127.0.0.1:8080") == .foreign("http://127.0.0.1:8081"))
        #expect(policy.caller(origin: "https://portal.example.com", host: "sync.example.com") == .allowed("https://portal.example.com"))
        #expect(policy.caller(origin: "https://PORTAL.example.com:443", host: "sync.example.com") == .allowed("https://portal.example.com"))
        #expect(policy.caller(origin: "http://portal.example.com", host: "sync.example.com") == .foreign("http://portal.example.com"))
        #expect(policy.caller(origin: "http://[::1]:8081", host: "[::1]:8080") == .allowed("http://[::1]:8081"))
        #expect(policy.caller(origin: "null", host: "sync.example.com") == .foreign("null"))
        // A page of another site whose name ends like this one's is another site.
        #expect(policy.caller(origin: "https://evil-sync.example.com", host: "sync.example.com") == .foreign("https://evil-sync.example.com"))

        // WebSocket libraries (the Swift SDK's among them) send the socket's URL as their origin:
        // no page has such an origin. A page's own, sent beside it, is what counts.
        #expect(policy.caller(origins: ["ws://127.0.0.1"], host: "127.0.0.1:8080") == .native)
        #expect(policy.caller(origins: ["WSS://sync.example.com"], host: "sync.example.com") == .native)
        #expect(policy.caller(origins: ["ws://127.0.0.1", "https://evil.example"], host: "127.0.0.1:8080") == .foreign("https://evil.example"))

        #expect(policy.admitsAdminToken(from: .native) && policy.admitsAdminToken(from: .sameOrigin))
        #expect(policy.admitsAdminToken(from: .allowed("https://office.example.com")))
        #expect(!policy.admitsAdminToken(from: .allowed("https://portal.example.com")))
        #expect(!policy.admitsAdminToken(from: .foreign("https://evil.example")))
    }
}
