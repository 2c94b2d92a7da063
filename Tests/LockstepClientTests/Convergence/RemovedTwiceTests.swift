import Foundation
@testable import LockstepClient
import LockstepCore
import Testing

/// PostgreSQL seed 1006 as it failed under load (2026-11-27, after the carried-change fixes):
/// two devices removed one member, at 41 ms and at 46 ms, and a third device, offline, had set
/// it at 43 ms. The later removal reached the server second, where the member was gone
/// already: it was recorded as no edit of the member (the server's rebase settled it to
/// nothing; a device that had heard of the first removal sent nothing for it, its diff from a
/// ghost without the member being empty there). So nothing said the member had been written at
/// 46 ms: the offline set, arriving last, won over the removal at 41 ms on the server, and the
/// device that made it, seeing no later writer of the member in the feed, sent it.
///
/// The later removal must be recorded and announced as a removal of the member, though it
/// changes no value, so that the server's rebase and every device's member stamps weigh later
/// arrivals against it. Run on a SQLite server and on two PostgreSQL nodes, with the later
/// removal frozen before its device heard of the earlier one (the server rebases it) or after,
/// and made with an edit of another member (as in the seed) or alone, when it changes no value
/// at all on the server and is recorded all the same.
@Suite("Convergence: a removal of a member removed already", .serialized)
struct RemovedTwiceTests {
    static func milliseconds(_ value: Int64) -> Int64 { 1_750_000_000_000_000_000 + value * 1_000_000 }

    @Test("a set stamped between two removals of a member loses to the later removal, which reached the server second",
          arguments: [ConvergenceBackend.sqlite, .postgresTwoNodes], [(frozen: true, alone: false), (true, true), (false, false), (false, true)])
    func setBetweenTwoRemovals(backend: ConvergenceBackend, removal: (frozen: Bool, alone: Bool)) async throws {
        if backend == .postgresTwoNodes, ProcessInfo.processInfo.environment["LOCKSTEP_TEST_POSTGRES_URL"]?.isEmpty ?? true {
            try Test.cancel("LOCKSTEP_TEST_POSTGRES_URL is not set")
        }
        let cluster = try await ConvergenceCluster.start(backend)
        // As in the seed: device 0 removes last, device 2 first, device 4 (polling) sets offline.
        let (lateRemover, earlyRemover, setter) = (0, 2, 4)
        do {
            cluster.devices[lateRemover].times.set(Self.milliseconds(40))
            try await cluster.bucket(lateRemover).put("box", ["n": 1, "tags": [41]])
            try await eventually("the box reaches the others") {
                try cluster.bucket(earlyRemover).get("box") != nil && cluster.bucket(setter).get("box") != nil
            }
            for device in [lateRemover, earlyRemover, setter] {
                try await cluster.devices[device].client.sync.waitUntilIdle(timeout: .seconds(30))
            }

            await cluster.setOnline(setter, false)
            cluster.devices[setter].times.set(Self.milliseconds(43))
            try await cluster.bucket(setter).update("box") { $0["tags"] = [43] }

            await cluster.setOnline(lateRemover, false)
            cluster.devices[lateRemover].times.set(Self.milliseconds(46))
            try await cluster.bucket(lateRemover).update("box") { object in
                object["tags"] = nil
                if !removal.alone { object["n"] = 47 }
            }
            if removal.frozen {
                // Sent against the version with the member, as when the first removal is still
                // on its way to this device: the server rebases it over that removal.
                let sent = try await cluster.devices[lateRemover].client.replica.takeOutgoing(bucket: ConvergenceCluster.bucket, resend: false)
                try #require(sent.count == 1, "the removal goes out alone")
            }

            cluster.devices[earlyRemover].times.set(Self.milliseconds(41))
            try await cluster.bucket(earlyRemover).update("box") { $0["tags"] = nil }
            try await cluster.devices[earlyRemover].client.sync.waitUntilIdle(timeout: .seconds(30))

            await cluster.setOnline(lateRemover, true)
            try await cluster.devices[lateRemover].client.sync.waitUntilIdle(timeout: .seconds(30))
            let lateRemoverID = cluster.devices[lateRemover].client.clientID
            try await eventually("the later removal reached the server", timeout: .seconds(20)) {
                try await cluster.feed().contains { $0.key == "box" && $0.clientID == lateRemoverID && $0.endVersion > 1 }
            }

            await cluster.setOnline(setter, true)
            let end = await cluster.settle(patience: .seconds(20))
            #expect(end.problems.isEmpty, "\(end.problems)")
            let expected: JSONObject = ["n": removal.alone ? 1 : 47]
            for (node, objects) in end.servers.enumerated() {
                #expect(objects["box"] == expected, "server node \(node): the removal stamped 46 ms is the latest edit of tags")
            }
            for (device, objects) in end.devices.enumerated() {
                #expect(objects["box"] == expected, "device \(device)")
            }
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }
}
