import Foundation
@testable import LockstepClient
import LockstepCore
import Testing

/// Changes a device carries to the server for a peer (seed 1006 on two PostgreSQL nodes: a
/// member removal stamped 46 ms ended under a list set stamped 40 ms, everywhere alike).
///
/// Device 0 set a member and sent that change; before the server had it, device 0 removed the
/// member again in a second change, and the peers met. Device 1 carried both changes, but sent
/// only the second: the first had lost the member to the second on device 1, so it left it out,
/// and with it the whole change. Against device 1's base, where the member was never set, the
/// removal was no edit at all. Device 0's own copy of the first change then reached the server
/// after the second and set the member, since nothing the server had seen removed it.
///
/// Run on a SQLite server and on two PostgreSQL nodes (the peers on different nodes), as the
/// convergence checker runs.
@Suite("Convergence: changes carried for a peer", .serialized)
struct CarriedChangeTests {
    static let start: Int64 = 1_750_000_000_000_000_000

    static func milliseconds(_ value: Int64) -> Int64 { start + value * 1_000_000 }

    @Test("a member set and then removed by a peer's two changes stays removed, whichever device the server hears first",
          arguments: [ConvergenceBackend.sqlite, .postgresTwoNodes])
    func removalAfterASetThatAPeerCarries(backend: ConvergenceBackend) async throws {
        try Self.requireDatabase(for: backend)
        let cluster = try await ConvergenceCluster.start(backend)
        let (author, carrier) = (History.peers.0, History.peers.1)
        do {
            cluster.devices[author].times.set(Self.milliseconds(1))
            try await cluster.bucket(author).put("box", ["n": 1])
            try await eventually("the box reaches the carrier") { try cluster.bucket(carrier).get("box") != nil }
            try await cluster.devices[author].client.sync.waitUntilIdle(timeout: .seconds(30))
            await cluster.setOnline(author, false)
            await cluster.setOnline(carrier, false)

            // The author sets the member, and its change is on its way when the link drops: it is
            // resent, unchanged, on the next connection.
            cluster.devices[author].times.set(Self.milliseconds(40))
            try await cluster.bucket(author).update("box") { $0["tags"] = [41] }
            let sent = try await cluster.devices[author].client.replica.takeOutgoing(bucket: ConvergenceCluster.bucket, resend: false)
            try #require(sent.count == 1, "the set goes out alone")
            try await cluster.meet()
            // Then it removes the member again, in a change of its own, and the peers meet again.
            cluster.devices[author].times.set(Self.milliseconds(46))
            try await cluster.bucket(author).update("box") { object in
                object["tags"] = nil
                object["n"] = 47
            }
            try await cluster.meet()

            // The carrier reaches the server first, then the author.
            await cluster.setOnline(carrier, true)
            try await cluster.devices[carrier].client.sync.waitUntilIdle(timeout: .seconds(30))
            await cluster.setOnline(author, true)
            let end = await cluster.settle(patience: .seconds(20))
            #expect(end.problems.isEmpty, "\(end.problems)")
            for (node, objects) in end.servers.enumerated() {
                #expect(objects["box"] == ["n": 47], "server node \(node): the removal stamped 46 ms is the latest edit of tags")
            }
            for (device, objects) in end.devices.enumerated() {
                #expect(objects["box"] == ["n": 47], "device \(device)")
            }
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    /// The same two changes of the author, with a third device's set of the member stamped
    /// between them (43 ms) reaching the server first: the shape of a seed 1006 failure seen
    /// once under load, where `tags` ended as the third device's [43] everywhere.
    @Test("a set stamped between a peer's set and removal loses to the removal, whichever device the server hears first",
          arguments: [ConvergenceBackend.sqlite, .postgresTwoNodes], [true, false])
    func aSetBetweenACarriedSetAndRemoval(backend: ConvergenceBackend, carrierFirst: Bool) async throws {
        try Self.requireDatabase(for: backend)
        let cluster = try await ConvergenceCluster.start(backend)
        let (author, carrier) = (History.peers.0, History.peers.1)
        let other = try #require(cluster.devices.indices.first { $0 != author && $0 != carrier })
        do {
            cluster.devices[author].times.set(Self.milliseconds(1))
            try await cluster.bucket(author).put("box", ["n": 1])
            try await eventually("the box reaches the others") {
                try cluster.bucket(carrier).get("box") != nil && cluster.bucket(other).get("box") != nil
            }
            try await cluster.devices[author].client.sync.waitUntilIdle(timeout: .seconds(30))
            await cluster.setOnline(author, false)
            await cluster.setOnline(carrier, false)

            cluster.devices[author].times.set(Self.milliseconds(40))
            try await cluster.bucket(author).update("box") { $0["tags"] = [41] }
            try await cluster.meet()
            cluster.devices[other].times.set(Self.milliseconds(43))
            try await cluster.bucket(other).update("box") { $0["tags"] = [43] }
            try await cluster.devices[other].client.sync.waitUntilIdle(timeout: .seconds(30))
            cluster.devices[author].times.set(Self.milliseconds(46))
            try await cluster.bucket(author).update("box") { $0["tags"] = nil }
            try await cluster.meet()

            let (first, second) = carrierFirst ? (carrier, author) : (author, carrier)
            await cluster.setOnline(first, true)
            try await cluster.devices[first].client.sync.waitUntilIdle(timeout: .seconds(30))
            await cluster.setOnline(second, true)
            let end = await cluster.settle(patience: .seconds(20))
            #expect(end.problems.isEmpty, "\(end.problems)")
            for (node, objects) in end.servers.enumerated() {
                #expect(objects["box"] == ["n": 1], "server node \(node): the removal stamped 46 ms is the latest edit of tags")
            }
            for (device, objects) in end.devices.enumerated() {
                #expect(objects["box"] == ["n": 1], "device \(device)")
            }
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    @Test("a change a peer carries is recorded as its author's, so a tie of edit times goes by the author's client id",
          arguments: [ConvergenceBackend.sqlite, .postgresTwoNodes])
    func carriedChangeKeepsItsAuthor(backend: ConvergenceBackend) async throws {
        try Self.requireDatabase(for: backend)
        let cluster = try await ConvergenceCluster.start(backend)
        let (author, carrier) = (History.peers.0, History.peers.1)
        do {
            cluster.devices[author].times.set(Self.milliseconds(1))
            try await cluster.bucket(author).put("box", ["n": 1])
            try await eventually("the box reaches the carrier") { try cluster.bucket(carrier).get("box") != nil }
            await cluster.setOnline(author, false)
            cluster.devices[author].times.set(Self.milliseconds(10))
            try await cluster.bucket(author).update("box") { $0["n"] = 2 }
            try await cluster.meet()
            try await cluster.devices[carrier].client.sync.waitUntilIdle(timeout: .seconds(30))
            let authorID = cluster.devices[author].client.clientID
            try await eventually("the carried change is in the feed") { try await cluster.feed().contains { $0.key == "box" && $0.endVersion == 2 } }
            let carried = try #require(try await cluster.feed().first { $0.key == "box" && $0.endVersion == 2 })
            #expect(carried.clientID == authorID, "recorded as the carrier's (\(cluster.devices[carrier].client.clientID))")
            await cluster.setOnline(author, true)
            let end = await cluster.settle(patience: .seconds(20))
            #expect(end.problems.isEmpty, "\(end.problems)")
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    private static func requireDatabase(for backend: ConvergenceBackend) throws {
        guard backend == .postgresTwoNodes else { return }
        guard let url = ProcessInfo.processInfo.environment["LOCKSTEP_TEST_POSTGRES_URL"], !url.isEmpty else {
            try Test.cancel("LOCKSTEP_TEST_POSTGRES_URL is not set")
        }
    }
}
