import LockstepCore
import LockstepServer
import Testing

@Suite("Releases over HTTP: purchases")
struct PurchaseTests {
    /// A server on a hand-set clock, a buyer, and a showing that starts after the first window does.
    struct Setup {
        let server: TestServer
        let clock: ManualClock
        let buyer: UserSession
        let entry: ScheduledEntry

        static func make() async throws -> Setup {
            let clock = ManualClock(milliseconds: ReleaseFixtures.minute)
            let releases = try ReleaseFixtures.service(now: clock.now)
            let server = try await TestServer.start(releases: releases)
            let buyer = try await server.createUser()
            let schedule = StoreSchedule(
                configuration: releases.configuration, store: releases.configuration.stores[0], seed: try ReleaseSeed(text: ReleaseFixtures.seedText))
            let entry = schedule.entries(from: ReleaseFixtures.minute, to: ReleaseFixtures.minute + 600_000).first { $0.start > ReleaseFixtures.minute }!
            return Setup(server: server, clock: clock, buyer: buyer, entry: entry)
        }

        func buy(id: String, item: String? = nil, slot: Int? = nil, start: Int64? = nil, store: String = "main") async throws -> TestResponse {
            try await buyer.request("POST", "purchase", body: [
                "id": .string(id), "store": .string(store), "slot": .integer(Int64(slot ?? entry.slot)),
                "start": .integer(start ?? entry.start), "item": .string(item ?? entry.item!.id),
            ])
        }
    }

    @Test func acceptedOnlyFromStartUntilEnd() async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.server.stop() } }
        let entry = setup.entry
        let cases: [(Int64, Int, String?)] = [
            (entry.start - 1, 409, "not_yet"),
            (entry.start, 201, nil),
            (entry.end - 1, 201, nil),
            (entry.end, 410, "expired"),
        ]
        for (index, (time, status, reason)) in cases.enumerated() {
            setup.clock.set(milliseconds: time)
            let response = try await setup.buy(id: "p-\(index)")
            #expect(response.status == status, "at \(time - entry.start) ms: \(response)")
            #expect(response.json?["error"]?["reason"]?.stringValue == reason, "at \(time - entry.start) ms: \(response)")
            if status == 201 {
                #expect(response.json?["item"]?.stringValue == entry.item?.id)
                #expect(response.json?["end"]?.integerValue == entry.end)
                #expect(response.json?["purchasedAt"]?.integerValue == time)
            }
        }
        let stored = try await setup.buyer.request("GET", "purchases/i/p-1")
        #expect(stored.status == 200)
        #expect(stored.json?["item"]?.stringValue == entry.item?.id)
        #expect(try await setup.buyer.request("GET", "purchases/i/p-0").status == 404)
        #expect(try await setup.buyer.request("GET", "purchases/i/p-3").status == 404)
    }

    @Test func aPurchaseIDMakesRetriesSafe() async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.server.stop() } }
        setup.clock.set(milliseconds: setup.entry.start + 10)
        let first = try await setup.buy(id: "once")
        #expect(first.status == 201)
        // Retried after the showing ended: the same purchase, not a refusal, and one record.
        setup.clock.set(milliseconds: setup.entry.end + 60_000)
        let retry = try await setup.buy(id: "once")
        #expect(retry.status == 200)
        #expect(retry.json == first.json)
        let index = try await setup.buyer.request("GET", "purchases/index")
        #expect(index.json?["index"]?.arrayValue?.count == 1)
        setup.clock.set(milliseconds: setup.entry.start + 20)
        let other = try await setup.buy(id: "once", slot: (setup.entry.slot + 1) % 12)
        #expect(other.status == 409)
        #expect(other.json?["error"]?["reason"]?.stringValue == "purchase_id_reused")
        // Retries racing each other still record one purchase.
        let racing = try await withThrowingTaskGroup(of: TestResponse.self) { group in
            for _ in 0..<8 { group.addTask { try await setup.buy(id: "race") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(racing.filter { $0.status == 201 }.count == 1, "\(racing)")
        #expect(racing.filter { $0.status == 200 }.count == 7, "\(racing)")
    }

    /// Whether an id is taken is decided in the group commit (the purchase reads nothing
    /// first): a record the admin wrote under the id is still answered, never overwritten.
    @Test func aRecordAtTheIDIsNeverOverwritten() async throws {
        let setup = try await PurchaseTests.Setup.make()
        defer { Task { await setup.server.stop() } }
        let admin = ["X-Simperium-Token": setup.server.app.adminToken, "X-Simperium-User": setup.buyer.userID]
        let written = try await setup.server.request("POST", "/1/\(setup.server.appID)/purchases/i/gift", headers: admin, body: ["note": "refund"])
        #expect(written.status == 200, "\(written)")
        setup.clock.set(milliseconds: setup.entry.start + 10)
        let bought = try await setup.buy(id: "gift")
        #expect(bought.status == 409, "\(bought)")
        #expect(bought.json?["error"]?["reason"]?.stringValue == "purchase_id_reused")
        let stored = try await setup.buyer.request("GET", "purchases/i/gift")
        #expect(stored.json == ["note": "refund"], "\(stored)")
        // Refused for its timing, the same id answers as taken too.
        setup.clock.set(milliseconds: setup.entry.end)
        let late = try await setup.buy(id: "gift")
        #expect(late.json?["error"]?["reason"]?.stringValue == "purchase_id_reused", "\(late)")
    }

    @Test func refusalsSayWhy() async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.server.stop() } }
        let entry = setup.entry
        setup.clock.set(milliseconds: entry.start + 1)
        let wrongItem = ["sword", "shield", "potion"].first { $0 != entry.item?.id }!
        let cases: [(TestResponse, Int, String)] = [
            (try await setup.buy(id: "w", item: wrongItem), 409, "wrong_item"),
            (try await setup.buy(id: "u", item: "dragon"), 404, "unknown_item"),
            (try await setup.buy(id: "s", store: "nope"), 404, "unknown_store"),
            (try await setup.buy(id: "l", slot: 12), 404, "unknown_slot"),
            (try await setup.buy(id: "e", start: entry.start + 1), 404, "unknown_entry"),
            (try await setup.buy(id: "bad id!"), 400, "bad_request"),
        ]
        for (response, status, reason) in cases {
            #expect(response.status == status, "\(response)")
            #expect(response.json?["error"]?["reason"]?.stringValue == reason, "\(response)")
            #expect(response.errorMessage?.isEmpty == false)
        }
        let anonymous = try await setup.server.request(
            "POST", "/1/\(setup.server.appID)/purchase",
            body: ["id": "x", "store": "main", "slot": .integer(Int64(entry.slot)), "start": .integer(entry.start), "item": .string(entry.item!.id)])
        #expect(anonymous.status == 401)
    }

    @Test func notYetNeverRevealsTheComingItem() async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.server.stop() } }
        setup.clock.set(milliseconds: setup.entry.start - 1)
        var answers: Set<String> = []
        for item in ["sword", "shield", "potion"] {
            let response = try await setup.buy(id: "guess-\(item)", item: item)
            answers.insert("\(response.status) \(response.json?["error"]?["reason"]?.stringValue ?? "")")
        }
        #expect(answers == ["409 not_yet"])
    }
}
