import Foundation
import LockstepClient
import LockstepCore
import Testing

/// PostgreSQL seed 2037 with peer text (found 2026-11-27; the SQLite server the same): a device
/// offline removed a member; meanwhile another device removed it too, earlier, and then set it
/// again, earlier than the offline removal. Coming online, the device took the remote removal,
/// which left nothing of its own pending for the member, and then the remote set, which it
/// took whole, so its later removal was lost everywhere. The member stamps know the removal is
/// ours and later: the device keeps it, and sends it.
@Suite("Convergence: an edit another device made too still counts")
struct RemovedAlreadyTests {
    @Test("a removal made offline wins over an earlier set that follows an earlier removal of the same member")
    func laterRemovalSurvivesAnEarlierRemovalAndSet() async throws {
        let devices = try await TwoDevices.start(bucket: "items")
        let (server, token, times, clients, items) = (devices.server, devices.token, devices.times, devices.clients, devices.buckets)
        for client in clients { await client.sync.start() }
        try await items[0].put("box", ["tags": [1], "n": 1])
        try await eventually("the box reaches the second device") { try items[1].get("box") != nil }
        try await clients[0].sync.waitUntilIdle()

        await clients[0].sync.stop()
        times[0].set(53_000)
        try await items[0].update("box") { $0["tags"] = nil }
        times[1].set(24_000)
        try await items[1].update("box") { $0["tags"] = nil }
        try await clients[1].sync.waitUntilIdle()
        times[1].set(42_000)
        try await items[1].update("box") { $0["tags"] = [45] }
        try await clients[1].sync.waitUntilIdle()

        await clients[0].sync.start()
        for client in clients { try await client.sync.waitUntilIdle() }
        try await eventually("both devices hold what the server holds") {
            let onServer = try await server.objects("items", token: token)["box"]
            return try items.allSatisfy { try $0.get("box") == onServer }
        }
        #expect(try await server.objects("items", token: token)["box"] == ["n": 1], "the removal stamped 53 is the latest edit of tags")
        await devices.stop()
    }
}
