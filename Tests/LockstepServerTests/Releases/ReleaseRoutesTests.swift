import Foundation
import LockstepCore
import LockstepServer
import Testing

@Suite("Releases over HTTP: windows and keys")
struct ReleaseRoutesTests {
    @Test func twoServersServeByteIdenticalImmutableWindows() async throws {
        let clock = ManualClock(milliseconds: ReleaseFixtures.minute + 12_345)
        let first = try await TestServer.start(releases: try ReleaseFixtures.service(now: clock.now))
        let second = try await TestServer.start(releases: try ReleaseFixtures.service(now: clock.now))
        defer { Task { await first.stop(); await second.stop() } }
        let path = "/releases/main/windows/\(ReleaseFixtures.minute)"
        let a = try await first.request("GET", path)
        let b = try await second.request("GET", path)
        #expect(a.status == 200)
        #expect(a.body == b.body)
        let etag = try #require(a.header("ETag"))
        #expect(etag == b.header("ETag"))
        #expect(a.header("Cache-Control") == "public, max-age=600, immutable")
        let window = try ReleaseWindow(json: try #require(a.json))
        try window.verify()
        #expect(window.store == "main" && window.slots == 12 && window.start == ReleaseFixtures.minute)
        #expect(!a.text.contains("sword") && !a.text.contains("shield") && !a.text.contains("potion"))

        let again = try await first.request("GET", path, headers: ["If-None-Match": etag])
        #expect(again.status == 304)
        let latest = try await first.request("GET", "/releases/main/windows/latest")
        #expect(latest.body == a.body)
        #expect(latest.header("Content-Location") == path)
        #expect(latest.header("Cache-Control") == "public, max-age=47")
    }

    @Test func windowsAreRefusedOutsideTheirTime() async throws {
        let clock = ManualClock(milliseconds: ReleaseFixtures.minute)
        let server = try await TestServer.start(releases: try ReleaseFixtures.service(now: clock.now))
        defer { Task { await server.stop() } }
        let cases: [(String, Int, String)] = [
            ("/releases/main/windows/\(ReleaseFixtures.minute + 60_000)", 409, "not_yet"),
            ("/releases/main/windows/\(ReleaseFixtures.minute - 600_000)", 410, "expired"),
            ("/releases/main/windows/\(ReleaseFixtures.minute + 1)", 400, "bad_request"),
            ("/releases/main/windows/soon", 400, "bad_request"),
            ("/releases/nope/windows/\(ReleaseFixtures.minute)", 404, "unknown_store"),
        ]
        for (path, status, reason) in cases {
            let response = try await server.request("GET", path)
            #expect(response.status == status, "\(path): \(response)")
            #expect(response.json?["error"]?["reason"]?.stringValue == reason, "\(path): \(response)")
            #expect(response.header("Cache-Control") == "no-store")
        }
        #expect(try await server.request("GET", "/releases/main/windows/\(ReleaseFixtures.minute - 540_000)").status == 200)
        let manifest = try await server.request("GET", "/releases")
        #expect(manifest.json?["stores"]?[1]?["id"]?.stringValue == "quick")
        #expect(manifest.json?["windowMs"]?.integerValue == 600_000)
    }

    @Test func aKeyIsNotFoundBeforeItsReleaseAndImmutableAfter() async throws {
        let clock = ManualClock(milliseconds: ReleaseFixtures.minute)
        let server = try await TestServer.start(releases: try ReleaseFixtures.service(now: clock.now))
        defer { Task { await server.stop() } }
        let window = try ReleaseWindow(json: try #require(try await server.request("GET", "/releases/main/windows/\(ReleaseFixtures.minute)").json))
        let entry = try #require(window.entries.first { $0.start > ReleaseFixtures.minute })

        clock.set(milliseconds: entry.start - 1)
        let early = try await server.request("GET", "/releases/main/keys/\(entry.start)")
        #expect(early.status == 404)
        #expect(early.json?["error"]?["reason"]?.stringValue == "not_released")
        #expect(early.json?["error"]?["releasesAt"]?.integerValue == entry.start)
        #expect(early.errorMessage?.contains("in 1 ms") == true)
        #expect(early.header("Cache-Control") == "no-store")

        clock.set(milliseconds: entry.start)
        let released = try await server.request("GET", "/releases/main/keys/\(entry.start)")
        #expect(released.status == 200)
        #expect(released.header("Cache-Control") == "public, max-age=31536000, immutable")
        let key = try ReleasedKey(json: try #require(released.json))
        #expect(key.time == entry.start)
        #expect(key.verify(anchor: try #require(window.anchors[entry.position.epoch])))
        let chainKey = try #require(key.key(at: entry.position))
        let item = try #require(try entry.open(store: "main", chainKey: chainKey))
        #expect(["sword", "shield", "potion"].contains(item.id))

        // The latest key opens this entry too, and every entry that started before it.
        clock.set(milliseconds: entry.start + 5_000)
        let latest = try ReleasedKey(json: try #require(try await server.request("GET", "/releases/main/keys/latest").json))
        #expect(latest.key(at: entry.position) == key.key)
        #expect(try await server.request("GET", "/releases/main/keys/\(entry.start + 6_000)").status == 404)
    }

    @Test func serversWithoutAStoreSaySo() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let response = try await server.request("GET", "/releases/main/windows/latest")
        #expect(response.status == 404)
        #expect(response.json?["error"]?["reason"]?.stringValue == "no_stores")
    }

    @Test func aBadConfigurationFileIsRefusedWithItsLineAndField() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).json").path
        try Data("{\n  \"stores\": [\n    {\"id\": \"main\", \"slots\": 5000}\n  ],\n  \"items\": [{\"id\": \"a\"}]\n}".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ReleaseConfigurationError.self) { try ReleaseService.load(configPath: path, seedText: ReleaseFixtures.seedText, now: { 0 }) }
        do {
            _ = try ReleaseService.load(configPath: path, seedText: ReleaseFixtures.seedText, now: { 0 })
        } catch {
            #expect("\(error)" == "\(path):3: stores[0].slots: must be a whole number between 1 and 1000")
        }
        try Data(ReleaseFixtures.configurationText.utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ReleaseSeedError.self) { try ReleaseService.load(configPath: path, seedText: "short\n", now: { 0 }) }
        _ = try ReleaseService.load(configPath: path, seedText: ReleaseFixtures.seedText, now: { 0 })
    }

    @Test(.timeLimit(.minutes(1))) func theHubPushesEachReleaseAtItsMoment() async throws {
        let clock = ServerClockSource()
        let releases = try ReleaseFixtures.service(now: clock.now)
        let stream = releases.hub.releases()
        #expect(releases.hub.subscriberCount == 1)
        var received: [ReleasedKey] = []
        for await key in stream {
            let now = clock.now() / 1_000_000
            // Never early; how late depends on the machine's load, so it is not asserted.
            #expect(key.time <= now, "a key came out \(key.time - now) ms early")
            let chain = ReleaseKeyChain(seed: try ReleaseSeed(text: ReleaseFixtures.seedText), store: key.store, epoch: key.position.epoch)
            #expect(key.verify(anchor: chain.anchor))
            received.append(key)
            if received.count == 3 { break }
        }
        #expect(received.map(\.time) == received.map(\.time).sorted())
        #expect(received.contains { $0.store == "quick" })
    }
}
