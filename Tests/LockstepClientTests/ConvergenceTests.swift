import Foundation
import LockstepClient
import LockstepCore
import PropertyBased
import Testing

@Suite("Convergence")
struct ConvergenceTests {
    @Test("three clients with random edits and random disconnects end identical", arguments: Transport.allCases)
    func threeClientsConverge(transport: Transport) async throws {
        await propertyCheck(count: 3, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            try await runScenario(seed: UInt64(seed), transport: transport)
        }
    }

    /// One seeded run: every random choice comes from `seed`, so a failure replays.
    func runScenario(seed: UInt64, transport: Transport) async throws {
        var random = Xoshiro(seed: (seed, seed &* 31 &+ 7, 0x9E37_79B9_7F4A_7C15, seed ^ 0xDEAD_BEEF))
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let times = (0..<3).map { _ in ManualEditTimes() }
        let clients = try times.map { try server.client(token: token, transport: transport, editTimes: $0) }
        let buckets = try clients.map { try $0.bucket("rooms") }
        var online = [true, true, true]
        for client in clients { await client.sync.start() }
        for index in 0..<4 { try await buckets[0].put("room-\(index)", ["count": 0, "text": "", "tags": []]) }
        try await clients[0].sync.waitUntilIdle()

        for step in 0..<60 {
            let who = Int.random(in: 0..<3, using: &random)
            let bucket = buckets[who]
            // Edit times on the server's clock: mostly increasing, sometimes skewed by a device.
            times[who].set(Int64(step) * 1_000 + Int64.random(in: -1_500...1_500, using: &random))
            let keys = try bucket.list().map(\.key)
            let key = keys.isEmpty ? nil : keys[Int.random(in: 0..<keys.count, using: &random)]
            let roll = Int.random(in: 0..<100, using: &random)
            do {
                switch roll {
                case 0..<45 where key != nil:
                    let value = Int64.random(in: 0..<1_000, using: &random)
                    let member = ["count", "text", "tags", "extra-\(who)"][Int.random(in: 0..<4, using: &random)]
                    try await bucket.update(key!) { object in
                        switch member {
                        case "text": object["text"] = .string((object["text"]?.stringValue ?? "") + "\(who)\(value % 10)")
                        case "tags": object["tags"] = .array((object["tags"]?.arrayValue ?? []) + [.integer(value)])
                        default: object[member] = .integer(value)
                        }
                    }
                case 45..<55:
                    try await bucket.put("new-\(step)", ["count": .integer(Int64(step)), "by": .integer(Int64(who))])
                case 55..<60 where key != nil:
                    try await bucket.delete(key!)
                case 60..<75:
                    online[who].toggle()
                    if online[who] { await clients[who].sync.start() } else { await clients[who].sync.stop() }
                default:
                    try await Task.sleep(for: .milliseconds(Int.random(in: 5...40, using: &random)))
                }
            } catch LockstepClientError.removed, LockstepClientError.notFound {
                // Another device deleted it a moment ago: as in any app.
            }
        }

        for client in clients { await client.sync.start() }
        for client in clients { try await client.sync.waitUntilIdle() }
        try await eventually("every client holds what the server holds (seed \(seed))") {
            let onServer = try await server.objects("rooms", token: token)
            return try buckets.allSatisfy { bucket in
                Dictionary(uniqueKeysWithValues: try bucket.list().map { ($0.key, $0.object) }) == onServer
            } && clients.allSatisfy { try $0.outbox.pending.isEmpty }
        }
        for client in clients { await client.close() }
        await server.stop()
    }
}
