import Foundation
import LockstepClient
import LockstepCore
import Testing

/// The SDK's spaces against a real server: made, shared by email, synced, listed, left and
/// deleted; and each refusal of the server a typed ``SpaceError``.
@Suite("SDK: spaces", .timeLimit(.minutes(2)))
struct SpaceSharingTests {
    @Test func anOwnerSharesASpaceAndItsBucketsSyncBetweenMembers() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let annToken = try await server.createUser("ann@example.com")
        let ann = try server.client(token: annToken, transport: .socket)
        let bob = try server.client(token: try await server.createUser("bob@example.com"), transport: .socket)
        defer { Task { await ann.close(); await bob.close() } }

        let job = try ann.space("job-1")
        try await job.create()
        try await job.invite("bob@example.com", as: .writer)
        // Nobody signed up as cat yet: the invitation waits, and is listed as a member.
        try await job.invite("cat@example.com", as: .reader)
        #expect(try await Set(job.members) == [
            SpaceMember(email: "ann@example.com", role: .owner), SpaceMember(email: "bob@example.com", role: .writer),
            SpaceMember(email: "cat@example.com", role: .reader),
        ])
        #expect(try await bob.spaces == [SpaceMembership(name: "job-1", role: .writer)])

        let bobItems = try bob.space("job-1").bucket("items")
        #expect(bobItems.name == "__job-1.items")
        let annItems = try job.bucket("items")
        let arrivals = annItems.events
        await ann.sync.start()
        await bob.sync.start()
        try await bobItems.put("sofa", ["room": "lounge"])
        let arrived = try await nextEvent(arrivals) { $0.origin == .remote }
        #expect(arrived.key == "sofa" && arrived.object == ["room": "lounge"])
        // Any other client reaches it by the bucket's name; the user's own `items` is another bucket.
        #expect(try await server.objects("__job-1.items", token: annToken) == ["sofa": ["room": "lounge"]])
        #expect(try await server.objects("items", token: annToken) == [:])

        try await job.invite("bob@example.com", as: .reader)
        #expect(try await bob.spaces == [SpaceMembership(name: "job-1", role: .reader)])
        try await job.remove("cat@example.com")
        #expect(try await job.members.map(\.email).sorted() == ["ann@example.com", "bob@example.com"])
    }

    @Test func eachRefusalIsATypedError() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try server.client(token: try await server.createUser("ann@example.com"))
        let bob = try server.client(token: try await server.createUser("bob@example.com"))
        let eve = try server.client(token: try await server.createUser("eve@example.com"))
        defer { Task { await ann.close(); await bob.close(); await eve.close() } }
        try await ann.space("job-1").create()
        try await ann.space("job-1").invite("bob@example.com", as: .writer)

        #expect(throws: SpaceError.invalid(
            "\"Job 1\" is not a valid space name: use 1 to 64 of a-z 0-9 _ -, beginning with a letter or digit")
        ) { _ = try ann.space("Job 1") }
        await #expect(throws: SpaceError.nameTaken(space: "job-1")) { try await eve.space("job-1").create() }
        // A stranger learns nothing: the space is as absent as one that never was.
        await #expect(throws: SpaceError.notFound(space: "job-1")) { try await eve.space("job-1").members }
        await #expect(throws: SpaceError.notFound(space: "job-9")) { try await ann.space("job-9").members }
        await #expect(throws: SpaceError.notFound(space: "job-1")) { try await eve.space("job-1").leave() }

        let writerDeletes = await #expect(throws: SpaceError.self) { try await bob.space("job-1").delete() }
        guard case .forbidden(let space, let message)? = writerDeletes else {
            Issue.record("a writer deleting: \(String(describing: writerDeletes))")
            return
        }
        #expect(space == "job-1" && message.contains("owner right"), "\(message)")

        let lastOwnerLeaves = await #expect(throws: SpaceError.self) { try await ann.space("job-1").leave() }
        guard case .lastOwner(_, let why)? = lastOwnerLeaves else {
            Issue.record("the last owner leaving: \(String(describing: lastOwnerLeaves))")
            return
        }
        #expect(why.contains("last owner"), "\(why)")
        let badEmail = await #expect(throws: SpaceError.self) { try await ann.space("job-1").invite("not-an-email", as: .reader) }
        guard case .invalid(let what)? = badEmail else {
            Issue.record("a malformed email: \(String(describing: badEmail))")
            return
        }
        #expect(what.contains("not an email address"), "\(what)")
        await #expect(throws: SpaceError.notMember(email: "cat@example.com", space: "job-1")) {
            try await ann.space("job-1").remove("cat@example.com")
        }
        // None of it changed anything.
        #expect(try await Set(ann.space("job-1").members) == [
            SpaceMember(email: "ann@example.com", role: .owner), SpaceMember(email: "bob@example.com", role: .writer),
        ])
        #expect(try await eve.spaces == [])
    }

    @Test func leavingOrDeletingForgetsTheSpacesBucketsHere() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try server.client(token: try await server.createUser("ann@example.com"))
        let bob = try server.client(token: try await server.createUser("bob@example.com"))
        defer { Task { await ann.close(); await bob.close() } }
        let job = try ann.space("job-1")
        try await job.create()
        try await job.invite("bob@example.com", as: .writer)
        try await job.bucket("items").put("sofa", ["room": "lounge"])
        let bobItems = try bob.space("job-1").bucket("items")
        await ann.sync.start()
        await bob.sync.start()
        try await ann.sync.waitUntilIdle()
        try await eventually("bob has the sofa") { try bobItems.get("sofa") != nil }

        // Offline, so that the leave is the first Bob's client hears of it.
        await bob.sync.stop()
        let bobEvents = bobItems.events
        try await bob.space("job-1").leave()
        let gone = try await nextEvent(bobEvents)
        #expect(gone == BucketEvent(
            kind: .deleted, bucket: "__job-1.items", key: "sofa", object: nil, origin: .revoked(message: "you left space job-1")))
        #expect(try bobItems.list().isEmpty)
        #expect(try bob.bucketNames.isEmpty)
        #expect(try await job.members == [SpaceMember(email: "ann@example.com", role: .owner)])
        // Bob's app still holds the bucket: a write to it is refused, not queued for ever.
        await #expect(throws: SpaceError.notFound(space: "job-1")) { try await bobItems.put("lamp", ["on": true]) }
        await bob.sync.start()
        try await bob.sync.waitUntilIdle(timeout: .seconds(10))

        try await job.delete()
        #expect(try ann.bucketNames.isEmpty)
        #expect(try await ann.spaces == [])
        try await ann.sync.waitUntilIdle(timeout: .seconds(10))
    }
}
