import Foundation
@testable import LockstepClient
import LockstepCore
import Testing

/// A first sync writes each index page in one transaction.
@Suite("Index pages")
struct IndexPageTests {
    static let bucket = "items"

    @Test("a page whose write fails part-way leaves the walk after the page before; the walk resumes there", arguments: Transport.allCases)
    func pageIsAtomic(transport: Transport) async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let keys = (0..<35).map { String(format: "k-%02d", $0) }
        let other = try server.client(token: token, transport: .socket)
        for key in keys { try await other.bucket(Self.bucket).put(key, ["key": .string(key)]) }
        await other.sync.start()
        try await other.sync.waitUntilIdle()
        await other.close()

        // Pages of ten, newest change first (k-34 … k-25, then k-24 …): the disk fails at the
        // sixth object of the second page.
        let store = temporaryStore()
        defer { removeStore(store) }
        let device = try server.client(store: store, token: token, transport: transport, indexPageSize: 10)
        _ = try device.bucket(Self.bucket)
        let failing = try await FailingGhostWrites.install(on: device, key: "k-19")
        await device.sync.start()
        try await eventually("the second page was tried twice") { failing.attempts >= 2 }
        let stuck = try StoreSnapshot.read(store, bucket: Self.bucket)
        #expect(stuck.cursor == nil)
        #expect(stuck.walkMark != nil)
        #expect(stuck.ghosts.keys.sorted() == Array(keys.suffix(10)), "the first page whole, nothing of the second")
        #expect(stuck.objects.keys.sorted() == Array(keys.suffix(10)))

        try await FailingGhostWrites.remove(from: device)
        try await device.sync.waitUntilIdle()
        let synced = try StoreSnapshot.read(store, bucket: Self.bucket)
        #expect(synced.walkMark == nil && synced.cursor != nil)
        #expect(synced.objects == (try await server.objects(Self.bucket, token: token)).mapValues { .some($0) })
        #expect(failing.attempts >= 2)
        await device.close()
        await server.stop()
    }
}
