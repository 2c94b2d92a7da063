import Foundation
@testable import LockstepClient
import LockstepCore
import Testing

/// Changes from the server are written in runs, one transaction each: a failure part-way
/// through a run keeps none of it, and the store always stands exactly at its cursor.
@Suite("Runs of changes from the server")
struct ChangeRunTests {
    static let bucket = "items"

    @Test("a run of changes is kept whole or not at all, with its cursor")
    func runIsAtomic() async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let store = temporaryStore()
        defer { removeStore(store) }
        // The device walked the bucket while it was empty, then went offline.
        let device = try await server.syncedClient(store: store, token: token, bucket: Self.bucket)
        await device.sync.stop()
        let before = try StoreSnapshot.read(store, bucket: Self.bucket)
        #expect(before.cursor != nil && before.ghosts.isEmpty)

        let other = try server.client(token: token, transport: .socket)
        for number in 0..<10 { try await other.bucket(Self.bucket).put("k-\(number)", ["n": .integer(Int64(number))]) }
        await other.sync.start()
        try await other.sync.waitUntilIdle()
        await other.close()
        let feed = try await server.feed(Self.bucket, token: token)
        #expect(feed.changes.count == 10)
        let run = [ChangeBatch(bucket: Self.bucket, changes: feed.changes)]

        // The disk fails at the seventh object: nothing of the run is kept, not even the six before.
        let failing = try await FailingGhostWrites.install(on: device, key: "k-6")
        await #expect(throws: (any Error).self) { _ = try await device.replica.receive(run) }
        #expect(failing.attempts == 1)
        #expect(try StoreSnapshot.read(store, bucket: Self.bucket) == before)

        try await FailingGhostWrites.remove(from: device)
        _ = try await device.replica.receive(run)
        let after = try StoreSnapshot.read(store, bucket: Self.bucket)
        #expect(after.cursor == feed.changes.last?.cursor)
        #expect(after.ghosts == (try Feed.ghosts(after: feed.changes)))
        #expect(after.objects == after.ghosts.mapValues(\.data))
        await device.close()
        await server.stop()
    }

    @Test("a live device whose writes fail part-way stands at its cursor, then catches up")
    func liveFailureKeepsTheStoreAtItsCursor() async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let store = temporaryStore()
        defer { removeStore(store) }
        let device = try await server.syncedClient(store: store, token: token, bucket: Self.bucket)
        let failing = try await FailingGhostWrites.install(on: device, key: "poison")

        // Another device sends a backlog without waiting for acknowledgements; the server
        // commits it in groups and announces each group at once, so the device receives runs.
        let other = try server.client(token: token, transport: .socket)
        let items = try other.bucket(Self.bucket)
        for number in 0..<30 { try await items.put("a-\(number)", ["n": .integer(Int64(number))]) }
        try await items.put("poison", ["n": -1])
        for number in 0..<30 { try await items.put("b-\(number)", ["n": .integer(Int64(number))]) }
        await other.sync.start()
        try await other.sync.waitUntilIdle()
        await other.close()
        let feed = try await server.feed(Self.bucket, token: token)
        #expect(feed.changes.count == 61)

        // Each attempt fails and the device reconnects and tries again; the store, read at any
        // moment, holds exactly what the feed holds up to its cursor, and never the poison.
        try await eventually("the device tried the poisoned run at least twice") { failing.attempts >= 2 }
        for _ in 0..<10 {
            let snapshot = try StoreSnapshot.read(store, bucket: Self.bucket)
            #expect(snapshot.ghosts == (try Feed.ghosts(after: feed.through(snapshot.cursor))))
            #expect(snapshot.ghosts["poison"] == nil)
            try await Task.sleep(for: .milliseconds(20))
        }

        try await FailingGhostWrites.remove(from: device)
        try await device.sync.waitUntilIdle()
        let caughtUp = try StoreSnapshot.read(store, bucket: Self.bucket)
        #expect(caughtUp.cursor == feed.changes.last?.cursor)
        #expect(caughtUp.ghosts == (try Feed.ghosts(after: feed.changes)))
        #expect(try await server.objects(Self.bucket, token: token) == caughtUp.objects.compactMapValues { $0 })
        await device.close()
        await server.stop()
    }
}
