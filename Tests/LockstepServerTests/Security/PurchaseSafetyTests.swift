import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Purchases are the server's word alone, and asking early reveals nothing.
@Suite("Security: purchases", .timeLimit(.minutes(2)))
struct PurchaseSafetyTests {
    @Test func usersCannotWriteTheirOwnPurchases() async throws {
        let setup = try await PurchaseTests.Setup.make()
        defer { Task { await setup.server.stop() } }
        let entry = setup.entry
        let forged: JSONObject = [
            "id": "free", "store": "main", "slot": .integer(Int64(entry.slot)), "item": .string(entry.item!.id),
            "start": .integer(entry.start), "end": .integer(entry.end), "purchasedAt": .integer(entry.start),
        ]
        let put = try await setup.buyer.request("POST", "purchases/i/free", body: .object(forged))
        #expect(put.status == 403, "\(put)")
        #expect(put.errorMessage?.contains("purchase") == true)
        let bulk = try await setup.buyer.request("POST", "purchases/changes", body: [["id": "free", "o": "M", "v": ["x": ["o": "+", "v": 1]]]])
        #expect(bulk.status == 403, "\(bulk)")
        let socket = try await SocketTestClient.connect(to: setup.server)
        defer { Task { await socket.close() } }
        try await socket.initialize(bucket: "purchases", token: setup.buyer.token)
        try await socket.send(#"0:c:{"id":"free","o":"M","ccid":"c1","v":{"item":{"o":"+","v":"sword"}}}"#)
        let refusal = try await socket.json(after: "0:c:")
        #expect(refusal[0]?["error"] == 403, "\(refusal)")
        // Nothing was planted, so the purchase route has nothing to replay.
        setup.clock.set(milliseconds: entry.end + 1)
        let replay = try await setup.buy(id: "free")
        #expect(replay.status == 410, "\(replay)")
        // The admin may still correct a record.
        let admin = try await setup.server.request(
            "POST", "/1/\(setup.server.appID)/purchases/i/fix",
            headers: ["X-Simperium-Token": setup.server.app.adminToken, "X-Simperium-User": setup.buyer.userID], body: ["note": "refund"])
        #expect(admin.status == 200, "\(admin)")
    }

    @Test func withoutAStoreAPurchasesBucketIsOrdinary() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        #expect(try await user.request("POST", "purchases/i/p1", body: ["mine": true]).status == 200)
    }

    @Test func anEarlyPurchaseGetsOneAnswerWhateverItNames() async throws {
        let setup = try await PurchaseTests.Setup.make()
        defer { Task { await setup.server.stop() } }
        setup.clock.set(milliseconds: setup.entry.start - 1)
        var answers: [String: Int] = [:]
        for (id, item, start) in [
            ("catalog", setup.entry.item!.id, setup.entry.start), ("unknown", "dragon", setup.entry.start),
            ("no-showing", setup.entry.item!.id, setup.entry.start + 1),
        ] {
            let response = try await setup.buy(id: id, item: item, start: start)
            answers["\(response.status) \(response.json?["error"]?["reason"]?.stringValue ?? "")", default: 0] += 1
        }
        #expect(answers == ["409 not_yet": 3])
    }
}
