import Foundation
import LockstepClient
import LockstepCore
import PropertyBased
import Testing

/// Typed writes through a real server and a peer link: a typed `put` or `update` sends only the
/// members whose encoding changed, so members the type does not model survive on every device.
@Suite("Typed writes in sync", .serialized)
struct TypedWriteSyncTests {
    /// The shopping list entry: it models no photo.
    struct Item: Codable, Sendable, Equatable {
        var name: String
        var quantity: Int
        var done: Bool
    }

    @Test("a photo attached to an item survives a typed update of its quantity: on this device, on the server, on a device that syncs with the server and on one that hears this one only over a peer link")
    func photoSurvivesTypedUpdate() async throws {
        try await Team.with(bucket: "items") { team in
            let items = try team.writer.bucket("items", of: Item.self)
            try await items.put("milk", Item(name: "milk", quantity: 1, done: false))
            let photo = try await items.raw.attach(testBytes(4_000, seed: 55), type: "image/png", to: "milk", member: "photo")
            for device in [team.online, team.nearby] {
                try await eventually("the photo reaches every device") { try device.bucket("items").attachment("photo", of: "milk") == photo }
            }

            try await items.update("milk") { $0.quantity = 2 }
            try await team.writer.sync.waitUntilIdle()
            for device in [team.online, team.nearby] {
                let items = try device.bucket("items", of: Item.self)
                try await eventually("the new quantity reaches every device") { try items.get("milk")?.quantity == 2 }
            }
            for device in [team.writer, team.online, team.nearby] {
                #expect(try device.bucket("items").attachment("photo", of: "milk") == photo)
            }
            let onServer = try await team.server.objects("items", token: team.token)
            #expect(onServer["milk"] == ["name": "milk", "quantity": 2, "done": false, "photo": photo.json])
        }
    }

    @Test("for random objects with members the type does not model (at the top, in a nested object, in a list's elements) and random typed edits, every such member survives on the server, on a device that syncs with it and on a peer")
    func unmodeledMembersSurviveEverywhere() async throws {
        try await Team.with(bucket: "listings") { team in
            let listings = try team.writer.bucket("listings", of: Listing.self)
            await propertyCheck(count: 10, input: Gen.int(in: 0...Int(Int32.max))) { seed in
                await recordingThrows { try await Self.check(seed: seed, team: team, listings: listings) }
            }
        }
    }

    /// Eight random cases at once: the writer stores their objects, waits for both other devices
    /// to hold them, edits each as a `Listing`, and checks the result everywhere.
    static func check(seed: Int, team: Team, listings: TypedBucket<Listing>) async throws {
        var random = Xoshiro(seed: (UInt64(seed), 0x5EED, UInt64(seed) &* 31, 0x9E37_79B9_7F4A_7C15))
        let cases = (0..<8).map { index in (key: "listing-\(seed)-\(index)", case: TypedWriteCase.random(using: &random)) }
        for (key, test) in cases { try await listings.raw.put(key, test.stored) }
        for device in [team.online, team.nearby] {
            let bucket = try device.bucket("listings")
            try await eventually("the stored objects reach every device") { try cases.allSatisfy { try bucket.get($0.key) == $0.case.stored } }
        }

        for (key, test) in cases {
            if test.throughPut {
                try await listings.put(key, test.edited)
            } else {
                try await listings.update(key) { [edited = test.edited] in $0 = edited }
            }
        }
        try await team.writer.sync.waitUntilIdle()
        for device in [team.online, team.nearby] {
            let bucket = try device.bucket("listings")
            try await eventually("the edits reach every device") {
                try cases.allSatisfy { try bucket.get($0.key).map(JSONValue.object)?.decode(Listing.self) == $0.case.edited }
            }
        }
        let onServer = try await team.server.objects("listings", token: team.token)
        for (key, test) in cases {
            #expect(test.violation(in: try listings.raw.get(key) ?? [:]) == nil, "on the writer: \(test)")
            #expect(test.violation(in: onServer[key] ?? [:]) == nil, "on the server: \(test)")
            #expect(test.violation(in: try team.online.bucket("listings").get(key) ?? [:]) == nil, "on a device online: \(test)")
            #expect(test.violation(in: try team.nearby.bucket("listings").get(key) ?? [:]) == nil, "on a peer: \(test)")
        }
    }

    /// One user's three devices around a real server: the writer syncs with the server and with
    /// a nearby device over a peer link; `online` syncs with the server alone, `nearby` with
    /// the writer alone (it never syncs with the server).
    struct Team {
        let server: TestServer
        let token: String
        let writer: LockstepClient
        let online: LockstepClient
        let nearby: LockstepClient
        let peers: [PeerSync]

        /// Runs `body` with a team syncing `bucket`, and stops it after, however `body` ends.
        static func with(bucket: String, _ body: (Team) async throws -> Void) async throws {
            let team = try await start(bucket: bucket)
            do {
                try await body(team)
            } catch {
                await team.stop()
                throw error
            }
            await team.stop()
        }

        static func start(bucket: String) async throws -> Team {
            let server = try await TestServer.start()
            let token = try await server.createUser()
            // The writer's edits are dated, as a calibrated clock dates them: a peer orders each
            // member's writes by their time (undated writes of one device by their random ccids).
            let devices = try (0..<3).map { try server.client(token: token, transport: .socket, editTimes: $0 == 0 ? RisingEditTimes() : NoEditTimes()) }
            for device in devices { _ = try device.bucket(bucket) }
            let pipes = [PipeTransport(), PipeTransport()]
            let peers = [PeerSync(client: devices[0], bucket: bucket, transport: pipes[0]), PeerSync(client: devices[2], bucket: bucket, transport: pipes[1])]
            for peer in peers {
                try await peer.prepare()
                try await peer.start()
            }
            pipes[0].link(to: pipes[1])
            await devices[0].sync.start()
            await devices[1].sync.start()
            return Team(server: server, token: token, writer: devices[0], online: devices[1], nearby: devices[2], peers: peers)
        }

        func stop() async {
            for peer in peers { await peer.stop() }
            for device in [writer, online, nearby] { await device.close() }
            await server.stop()
        }
    }
}
