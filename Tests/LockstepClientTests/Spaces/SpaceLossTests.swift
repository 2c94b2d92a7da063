import Foundation
import LockstepClient
import LockstepCore
import Testing

/// A member who loses a space (an owner removes them) loses it on their device too: the
/// space's buckets are forgotten, the app hears of each object with the server's reason, the
/// buckets stop syncing, and every edit the server had not acknowledged comes back rejected.
@Suite("SDK: losing a space", .timeLimit(.minutes(2)))
struct SpaceLossTests {
    /// Ann owns `job-1` with a sofa and a lamp in its `items`; Bob is a writer.
    struct Job {
        let server: TestServer
        let ann: LockstepClient
        let annToken: String
        let bobToken: String

        static func start() async throws -> Job {
            let server = try await TestServer.start()
            let annToken = try await server.createUser("ann@example.com")
            let ann = try server.client(token: annToken, transport: .socket)
            let bobToken = try await server.createUser("bob@example.com")
            let job = try ann.space("job-1")
            try await job.create()
            try await job.invite("bob@example.com", as: .writer)
            try await job.bucket("items").put("sofa", ["room": "lounge"])
            try await job.bucket("items").put("lamp", ["on": true])
            await ann.sync.start()
            try await ann.sync.waitUntilIdle()
            return Job(server: server, ann: ann, annToken: annToken, bobToken: bobToken)
        }

        /// Bob's client in `store`, having synced the job's items and a bucket of his own.
        func bob(store: URL, transport: Transport) async throws -> LockstepClient {
            let bob = try server.client(store: store, token: bobToken, transport: transport)
            let items = try bob.space("job-1").bucket("items")
            try await bob.bucket("notes").put("n1", ["text": "mine"])
            await bob.sync.start()
            try await eventually("bob has the job's items") { try items.list().count == 2 }
            try await bob.sync.waitUntilIdle()
            return bob
        }

        func stop() async {
            await ann.close()
            await server.stop()
        }
    }

    @Test(arguments: Transport.allCases)
    func aMemberRemovedWhileConnectedForgetsTheSpaceAtOnce(transport: Transport) async throws {
        let job = try await Job.start()
        let store = temporaryStore()
        defer { removeStore(store) }
        let bob = try await job.bob(store: store, transport: transport)
        let items = try bob.space("job-1").bucket("items")
        let events = items.events

        try await job.ann.space("job-1").remove("bob@example.com")
        var gone: [BucketEvent] = []
        // Polling hears of it at its next poll (2 s long polls here); how soon the server ends a
        // socket's channel is the server's tests' to check, on the server's clock.
        for _ in 0..<2 { gone.append(try await nextEvent(events, timeout: .seconds(15))) }
        // The socket hears the server's reason; polling, only that the space is no longer there.
        let reason = transport == .socket ? "you were removed from space job-1" : "you are not a member of space job-1"
        #expect(gone.map(\.key).sorted() == ["lamp", "sofa"])
        #expect(gone.allSatisfy { $0.kind == .deleted && $0.object == nil && $0.origin == .revoked(message: reason) }, "\(gone)")
        #expect(try StoreSnapshot.read(store, bucket: "__job-1.items") == StoreSnapshot(cursor: nil, walkMark: nil, ghosts: [:], objects: [:]))
        #expect(try bob.bucketNames == ["notes"])
        #expect(try bob.outbox.rejected.isEmpty)

        // Bob's own bucket syncs on; the space's stays forgotten.
        try await bob.bucket("notes").put("n2", ["text": "still syncing"])
        try await bob.sync.waitUntilIdle(timeout: .seconds(20))
        #expect(try await job.server.objects("notes", token: job.bobToken).keys.sorted() == ["n1", "n2"])
        try await job.ann.space("job-1").bucket("items").put("chair", ["room": "hall"])
        try await job.ann.sync.waitUntilIdle()
        try await Task.sleep(for: .milliseconds(500))
        #expect(try items.list().isEmpty)
        #expect(try bob.bucketNames == ["notes"])
        if transport == .socket { #expect(bob.sync.state == .streaming) }
        await bob.close()
        await job.stop()
    }

    /// A space that held nothing yet is lost all the same: no object event says so, the
    /// client's lost spaces do.
    @Test func losingASpaceThatHeldNothingIsToldToo() async throws {
        let job = try await Job.start()
        let store = temporaryStore()
        defer { removeStore(store) }
        let bob = try await job.bob(store: store, transport: .socket)
        try await job.ann.space("job-2").create()
        try await job.ann.space("job-2").invite("bob@example.com", as: .reader)
        _ = try bob.space("job-2").bucket("plan")
        try await bob.sync.waitUntilIdle()
        let losses = bob.lostSpaces

        try await job.ann.space("job-2").remove("bob@example.com")
        let loss = try await nextEvent(losses, timeout: .seconds(10))
        #expect(loss == SpaceLoss(space: "job-2", bucket: "__job-2.plan", reason: "you were removed from space job-2"))
        #expect(try bob.bucketNames.sorted() == ["__job-1.items", "notes"])
        await bob.close()
        await job.stop()
    }

    @Test func deletingTheSpaceForgetsItOnEveryMembersDevice() async throws {
        let job = try await Job.start()
        let store = temporaryStore()
        defer { removeStore(store) }
        let bob = try await job.bob(store: store, transport: .socket)
        let events = try bob.space("job-1").bucket("items").events

        try await job.ann.space("job-1").delete()
        var gone: [BucketEvent] = []
        for _ in 0..<2 { gone.append(try await nextEvent(events, timeout: .seconds(5))) }
        #expect(gone.map(\.key).sorted() == ["lamp", "sofa"])
        #expect(gone.allSatisfy { $0.origin == .revoked(message: "space job-1 was deleted") }, "\(gone)")
        #expect(try StoreSnapshot.read(store, bucket: "__job-1.items") == StoreSnapshot(cursor: nil, walkMark: nil, ghosts: [:], objects: [:]))
        #expect(try bob.bucketNames == ["notes"])
        #expect(try job.ann.bucketNames.isEmpty)
        await bob.close()
        await job.stop()
    }

    /// A peer link opened while Bob was a member brings him nothing after his removal, and he
    /// cannot open another: the bucket's peer key went with it.
    @Test func aRemovedMemberTakesNothingMoreFromPeers() async throws {
        let job = try await Job.start()
        let store = temporaryStore()
        defer { removeStore(store) }
        let bob = try await job.bob(store: store, transport: .socket)
        let bucket = "__job-1.items"
        let bobItems = try bob.space("job-1").bucket("items")
        let pipes = [PipeTransport(), PipeTransport()]
        let peers = [PeerSync(client: job.ann, bucket: bucket, transport: pipes[0]), PeerSync(client: bob, bucket: bucket, transport: pipes[1])]
        for peer in peers { try await peer.start() }
        pipes[0].link(to: pipes[1])
        // Ann is off the server: what she writes reaches Bob through the link alone.
        await job.ann.sync.stop()
        try await job.ann.space("job-1").bucket("items").put("chair", ["room": "hall"])
        try await eventually("bob has the chair from ann's phone") { try bobItems.get("chair") != nil }

        try await job.ann.space("job-1").remove("bob@example.com")
        try await eventually("bob forgot the space") { try bob.bucketNames == ["notes"] }
        try await job.ann.space("job-1").bucket("items").put("rug", ["colour": "red"])
        try await Task.sleep(for: .seconds(1))
        #expect(try bobItems.list().isEmpty)
        #expect(try StoreSnapshot.read(store, bucket: bucket) == StoreSnapshot(cursor: nil, walkMark: nil, ghosts: [:], objects: [:]))
        await #expect(throws: PeerSyncError.noPeerKey(bucket: bucket)) {
            try await PeerSync(client: bob, bucket: bucket, transport: PipeTransport()).start()
        }
        #expect(try bob.bucketNames == ["notes"])
        for peer in peers { await peer.stop() }
        await bob.close()
        await job.stop()
    }

    @Test(arguments: Transport.allCases)
    func editsMadeOfflineBeforeTheRemovalComeBackRejected(transport: Transport) async throws {
        let job = try await Job.start()
        let store = temporaryStore()
        defer { removeStore(store) }
        let bob = try await job.bob(store: store, transport: transport)
        let items = try bob.space("job-1").bucket("items")
        await bob.sync.stop()
        try await items.update("sofa") { $0["room"] = "attic" }
        try await items.put("rug", ["colour": "red"])
        let events = items.events

        try await job.ann.space("job-1").remove("bob@example.com")
        await bob.sync.start()
        try await eventually("bob's edits are rejected") { try bob.outbox.rejected.count == 2 }
        let rejected = try bob.outbox.rejected
        #expect(rejected.map(\.key).sorted() == ["rug", "sofa"])
        #expect(rejected.allSatisfy { $0.status == .rejected(code: 403, message: "you are not a member of space job-1") }, "\(rejected)")
        #expect(try bob.outbox.pending.isEmpty)
        var gone: [BucketEvent] = []
        for _ in 0..<3 { gone.append(try await nextEvent(events, timeout: .seconds(5))) }
        #expect(gone.map(\.key).sorted() == ["lamp", "rug", "sofa"])
        #expect(try items.list().isEmpty)
        // None of it reached the space.
        #expect(try await job.server.objects("__job-1.items", token: job.annToken) == ["lamp": ["on": true], "sofa": ["room": "lounge"]])
        try await bob.sync.waitUntilIdle(timeout: .seconds(20))
        await bob.close()
        await job.stop()
    }

    /// A new role ends the member's channels too (they were opened with the old one); the
    /// member keeps the space, and their client carries on with the new role.
    @Test func aMemberWhoseRoleChangesKeepsTheSpace() async throws {
        let job = try await Job.start()
        let store = temporaryStore()
        defer { removeStore(store) }
        let bob = try await job.bob(store: store, transport: .socket)
        let items = try bob.space("job-1").bucket("items")
        let events = items.events

        try await job.ann.space("job-1").invite("bob@example.com", as: .reader)
        try await job.ann.space("job-1").bucket("items").put("chair", ["room": "hall"])
        let arrived = try await nextEvent(events)
        #expect(arrived.key == "chair" && arrived.origin == .remote, "\(arrived)")
        #expect(try items.list().map(\.key) == ["chair", "lamp", "sofa"])

        // A reader's write is refused, saying so.
        try await items.put("rug", ["colour": "red"])
        try await eventually("the reader's write is rejected") { try bob.outbox.rejected.count == 1 }
        let rejected = try bob.outbox.rejected
        guard case .rejected(403, let message?)? = rejected.first?.status else {
            Issue.record("\(rejected)")
            return
        }
        #expect(message.contains("write right"), "\(message)")
        #expect(try bob.bucketNames == ["__job-1.items", "notes"])
        await bob.close()
        await job.stop()
    }
}
