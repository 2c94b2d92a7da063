import Foundation
import LockstepClient
import LockstepCore
import PropertyBased
import Testing

/// An object restored while devices edit it, online and offline: every device ends with what
/// the server holds, which is the restored version plus every edit made after the restore (the
/// latest by edit time for each member); the edits the restore undid were made before it.
@Suite("Restore under concurrent edits", .timeLimit(.minutes(5)))
struct RestoreUnderConcurrentEditsTests {
    /// An edit a device makes after the restore: a member set to a value, maybe after the device
    /// went offline or came back.
    struct Edit: Sendable, CustomStringConvertible {
        var device: Int
        var member: String
        var toggles: Bool

        var description: String { "\(device):\(member)\(toggles ? " (toggles)" : "")" }
    }

    static let edits = Generator { rng in
        (0..<Int.random(in: 1...8, using: &rng)).map { _ in
            Edit(
                device: Int.random(in: 0...1, using: &rng), member: ["room", "quantity", "note", "label"].randomElement(using: &rng)!,
                toggles: Int.random(in: 0..<3, using: &rng) == 0)
        }
    }

    @Test(arguments: Transport.allCases)
    func devicesConvergeOnTheRestoredVersionPlusTheirLaterEdits(_ transport: Transport) async throws {
        await propertyCheck(count: 3, input: Self.edits) { edits in
            // Recorded, not thrown: propertyCheck drops what its body throws.
            do { try await run(edits, transport: transport) } catch { Issue.record(error, "\(edits)") }
        }
    }

    func run(_ edits: [Edit], transport: Transport) async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.createUser()
        // Edit times on the server's clock: the job's first minute a while ago, the edits after
        // the restore after it.
        let start = server.services.clock.now() - 60_000_000_000
        let times = [ManualEditTimes(start), ManualEditTimes(start)]
        let devices = try times.map { try server.client(token: token, transport: transport, editTimes: $0) }
        defer { Task { for device in devices { await device.close() } } }
        let buckets = try devices.map { try $0.bucket("job") }
        for device in devices { await device.sync.start() }

        let original: JSONObject = ["name": "Sofa", "room": "lounge", "quantity": 1]
        try await buckets[0].put("sofa", original)
        try await devices[0].sync.waitUntilIdle()
        // The bad build: every member overwritten, acknowledged before the restore.
        times[0].set(start + 1_000)
        try await buckets[0].update("sofa") { object in
            object["room"] = "?"
            object["quantity"] = 0
        }
        try await devices[0].sync.waitUntilIdle()
        try await eventually("the second device has the bad build's version") { try buckets[1].get("sofa")?["room"] == "?" }
        // Offline, the second device moves the sofa, before the restore.
        await devices[1].sync.stop()
        times[1].set(start + 2_000)
        try await buckets[1].update("sofa") { $0["room"] = "garage" }

        // The office puts the sofa back as it was first, from the first device.
        #expect(try await buckets[0].restore("sofa", to: 1) == 3)
        let afterRestore = server.services.clock.now() + 1_000_000_000

        // Edits after the restore, each later than the one before, devices going on and offline.
        var online = [true, false]
        var expected = original
        for (index, edit) in edits.enumerated() {
            if edit.toggles {
                online[edit.device].toggle()
                if online[edit.device] { await devices[edit.device].sync.start() } else { await devices[edit.device].sync.stop() }
            }
            times[edit.device].set(afterRestore + Int64(index) * 1_000)
            let value = JSONValue.string("\(edit.member) by device \(edit.device), edit \(index)")
            try await buckets[edit.device].update("sofa") { $0[edit.member] = value }
            expected[edit.member] = value
        }
        for device in devices { await device.sync.start() }
        for device in devices { try await device.sync.waitUntilIdle() }

        try await eventually("every device holds what the server holds: the restore plus the later edits (\(edits))") {
            let onServer = try await server.objects("job", token: token)["sofa"]
            return try onServer == expected && buckets.allSatisfy { try $0.get("sofa") == expected }
                && devices.allSatisfy { try $0.outbox.pending.isEmpty }
        }
        // The restore is in the history: the version the office made, with its author and what it put back.
        let history = try await buckets[1].versions(of: "sofa")
        let restore = try #require(history.first { $0.restoredFrom != nil })
        #expect(restore.version == 3 && restore.restoredFrom == 1 && restore.clientID == devices[0].clientID, "\(history)")
        #expect(history.last?.version == 1 && history.last?.data == original)
    }
}
