import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Rate limits count callers by who they are, not by what they claim: a token only once it
/// proved real, otherwise the address, and behind a proxy the address the trusted proxy saw.
@Suite("Security: rate limits per caller address", .timeLimit(.minutes(2)))
struct AddressLimitTests {
    /// A server behind a proxy on 127.0.0.1, like the nginx deployment: `X-Forwarded-For`
    /// names each caller.
    static func behindProxy(_ limits: Limits, releases: ReleaseService? = nil) async throws -> TestServer {
        try await TestServer.start(limits: limits, releases: releases) { services in
            services.trustedProxies = TrustedProxies([AddressRange("127.0.0.1")!])
        }
    }

    static func from(_ address: String) -> [String: String] {
        ["X-Forwarded-For": address]
    }

    @Test func oneFloodingAddressDoesNotStarveTheOthers() async throws {
        var limits = TestServer.testLimits
        // One request every two seconds, in bursts of one: the flood is refused however slowly it goes.
        limits.httpRequestsPerSecond = 0.5
        let server = try await Self.behindProxy(limits)
        defer { Task { await server.stop() } }
        var flood: [Int] = []
        for _ in 0..<20 { flood.append(try await server.request("GET", "/time?t1=1", headers: Self.from("198.51.100.7")).status) }
        #expect(flood.contains(429))
        // Everyone else: the clock, and sign-up, answer as usual.
        #expect(try await server.request("GET", "/time?t1=1", headers: Self.from("203.0.113.9")).status == 200)
        let created = try await server.request(
            "POST", "/1/\(server.appID)/create/", headers: ["X-Simperium-API-Key": server.app.apiKey, "X-Forwarded-For": "203.0.113.10"],
            body: ["username": "ann@example.com", "password": "pw"])
        #expect(created.status == 200, "\(created)")
    }

    @Test func forwardedForFromAnUntrustedPeerIsIgnored() async throws {
        var limits = TestServer.testLimits
        limits.httpRequestsPerSecond = 2
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let served = try await Self.served(40) { index in
            try await server.request("GET", "/time?t1=1", headers: Self.from("198.51.100.\(index)")).status
        }
        #expect(served.passed <= served.allowance, "a made-up X-Forwarded-For bought fresh allowances: \(served)")
    }

    @Test func madeUpTokensAreChargedToTheirAddress() async throws {
        var limits = TestServer.testLimits
        limits.httpRequestsPerSecond = 2
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let served = try await Self.served(40) { _ in
            try await server.request("GET", "/1/\(server.appID)/note/index", headers: ["X-Simperium-Token": Secrets.randomHex()]).status
        }
        #expect(served.passed <= served.allowance, "each made-up token bought a fresh allowance: \(served)")
        // A real token has an allowance of its own, whatever its address did.
        #expect(try await user.request("GET", "note/index").status == 200)
    }

    /// Makes `count` requests one after another at 2 per second (bursts of 4) from one
    /// address: how many were not refused, and how many one caller may pass in that time
    /// however slow the machine.
    static func served(_ count: Int, _ request: (Int) async throws -> Int) async throws -> (passed: Int, allowance: Int) {
        let started = ContinuousClock.now
        var passed = 0
        for index in 0..<count where try await request(index) != 429 { passed += 1 }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        return (passed, 4 + Int((2 * seconds).rounded(.up)))
    }

    @Test func signUpsAndSignInsHaveABudgetPerAddress() async throws {
        var limits = TestServer.testLimits
        limits.accountRequestsPerMinute = 3
        let server = try await Self.behindProxy(limits)
        defer { Task { await server.stop() } }
        let key = ["X-Simperium-API-Key": server.app.apiKey]
        var statuses: [Int] = []
        let started = ContinuousClock.now
        for index in 0..<10 {
            let response = try await server.request(
                "POST", "/1/\(server.appID)/authorize/", headers: key.merging(Self.from("198.51.100.7")) { $1 },
                body: ["username": .string("guess-\(index)@example.com"), "password": "pw"])
            statuses.append(response.status)
        }
        // A budget of 6 at once (twice the minute's), then one more every 20 s: a machine slow
        // enough to take 20 s over these requests has earned one more by then (a loaded CI run
        // took 70 s for this test), and the rest are refused.
        let earned = Int((ContinuousClock.now - started) / .seconds(20))
        #expect(statuses.prefix(6).allSatisfy { $0 == 401 }, "\(statuses)")
        #expect(statuses.suffix(4).filter { $0 != 429 }.count <= earned, "\(statuses) in \(ContinuousClock.now - started)")
        let elsewhere = try await server.request(
            "POST", "/1/\(server.appID)/create/", headers: key.merging(Self.from("203.0.113.9")) { $1 },
            body: ["username": "bea@example.com", "password": "pw"])
        #expect(elsewhere.status == 200, "\(elsewhere)")
    }

    @Test func aReleaseRushFromAThousandAddressesIsServedWithout429() async throws {
        let clock = ManualClock(milliseconds: ReleaseFixtures.minute + 30_000)
        // The default limits, as a deployment runs them.
        var limits = Limits()
        limits.passwordHashCost = 1 << 10
        let server = try await Self.behindProxy(limits, releases: try ReleaseFixtures.service(now: clock.now))
        defer { Task { await server.stop() } }
        let path = "/releases/main/keys/\(ReleaseFixtures.minute + 30_000)"
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            var statuses: [Int] = []
            for index in 0..<1000 {
                if index >= 32 { statuses.append(try await group.next()!) }
                group.addTask {
                    try await server.request("GET", path, headers: Self.from("10.\(index / 250).\(index % 250).1")).status
                }
            }
            for try await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses.count == 1000)
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses.filter { $0 != 200 }.count) of 1,000 were not served")
    }

    @Test func addressesAndForwardingResolveAsDocumented() throws {
        let proxies = try TrustedProxies(parsing: "127.0.0.1, 10.0.0.0/8 ::1")
        let proxy = IPAddress("10.1.2.3")!
        #expect(proxies.client(peer: proxy, forwardedFor: ["203.0.113.9"]) == IPAddress("203.0.113.9"))
        // The caller's own entries, left of the nearest untrusted address, prove nothing.
        #expect(proxies.client(peer: proxy, forwardedFor: ["1.1.1.1, 203.0.113.9, 10.9.9.9"]) == IPAddress("203.0.113.9"))
        #expect(proxies.client(peer: proxy, forwardedFor: ["203.0.113.9", "garbage"]) == proxy)
        #expect(proxies.client(peer: IPAddress("198.51.100.1"), forwardedFor: ["203.0.113.9"]) == IPAddress("198.51.100.1"))
        #expect(IPAddress("::ffff:192.0.2.1") == IPAddress("192.0.2.1"))
        #expect(IPAddress("2001:db8:1:2:aaaa::1")?.limitKey == IPAddress("2001:db8:1:2:bbbb::9")?.limitKey)
        #expect(IPAddress("2001:db8:1:2::1")?.limitKey != IPAddress("2001:db8:1:3::1")?.limitKey)
        #expect(AddressRange("10.0.0.0/33") == nil && AddressRange("example.com") == nil)
        #expect(throws: TrustedProxyError.self) { try TrustedProxies(parsing: "10.0.0.0/8 nginx") }
    }
}
