import Foundation
import GRDB
@testable import LockstepClient
import LockstepCore
import Testing

/// What the outbox sends of an object with an attachment, with the test playing the server:
/// the member that refers to the attachment goes only once its upload completed; the object's
/// other members go at once.
@Suite("Attachments in the outbox")
struct AttachmentOutboxTests {
    @Test("attach shows the reference locally at once, and stores the bytes under their hash")
    func attachIsLocalAndImmediate() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "t")
        let items = try client.bucket("items")
        let events = items.events
        let bytes = testBytes(100_000, seed: 1)
        let photo = try await items.attach(bytes, type: "image/jpeg", to: "box-1", member: "photo")

        #expect(photo.size == 100_000 && photo.type == "image/jpeg" && photo.sha256.count == 64)
        #expect(try items.attachment("photo", of: "box-1") == photo)
        #expect(try items.get("box-1") == ["photo": photo.json])
        let event = try await nextEvent(events)
        #expect(event.kind == .inserted && event.object?["photo"] == photo.json && event.origin == .local)
        // On the device, read back without any server.
        #expect(try await items.data(for: photo) == bytes)
        let file = store.appendingPathComponent("attachments").appendingPathComponent(photo.sha256)
        #expect(try Data(contentsOf: file) == bytes)
        #expect(try client.uploads.map(\.attachment) == [photo])
        #expect(try client.uploads.map(\.state) == [.queued])
        await client.close()
    }

    @Test("the reference waits for the upload; other members go at once and later edits are not held back")
    func referenceWaitsForUpload() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "t")
        let items = try client.bucket("items")
        try await items.put("box-1", ["label": "Books"])
        let photo = try await items.attach(testBytes(5000, seed: 2), type: "image/png", to: "box-1", member: "photo")
        try await items.update("box-1") { $0["room"] = "kitchen" }

        // The creation goes with label and room, without the photo.
        let first = try await client.replica.takeOutgoing(bucket: "items", resend: false)
        #expect(first.count == 1)
        #expect(LockstepClient.members(of: first[0]) == ["label", "room"])
        try await client.acknowledge(first, bucket: "items")
        // Locally the photo stays; the server's version (the ghost) has no photo yet.
        #expect(try items.get("box-1") == ["label": "Books", "room": "kitchen", "photo": photo.json])
        #expect(try await client.replica.takeOutgoing(bucket: "items", resend: false).isEmpty)

        // A later edit of another member goes at once, the photo still held.
        try await items.update("box-1") { $0["label"] = "Old books" }
        let second = try await client.replica.takeOutgoing(bucket: "items", resend: false)
        #expect(second.count == 1 && LockstepClient.members(of: second[0]) == ["label"])
        try await client.acknowledge(second, bucket: "items")

        // The upload completes: now the reference goes, alone.
        try await client.completeUpload(photo)
        let third = try await client.replica.takeOutgoing(bucket: "items", resend: false)
        #expect(third.count == 1 && LockstepClient.members(of: third[0]) == ["photo"])
        try await client.acknowledge(third, bucket: "items")
        #expect(try client.outbox.pending.isEmpty)
        #expect(try client.uploads.isEmpty)
        #expect(try items.get("box-1") == ["label": "Old books", "room": "kitchen", "photo": photo.json])
        await client.close()
    }

    @Test("a new object with only an attachment is not created on the server before the upload")
    func attachmentOnlyObjectWaits() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "t")
        let items = try client.bucket("items")
        let photo = try await items.attach(testBytes(10, seed: 3), type: "image/png", to: "box-2", member: "photo")
        #expect(try await client.replica.takeOutgoing(bucket: "items", resend: false).isEmpty)
        // Held, it keeps no upload from starting: nothing else waits.
        #expect(try await client.replica.database.read { db in try AttachmentRecords.dataChangesWaiting(db, atOrAbove: .low) } == false)
        try await client.completeUpload(photo)
        let sent = try await client.replica.takeOutgoing(bucket: "items", resend: false)
        #expect(sent.count == 1 && sent[0]["v"]?["photo"]?["v"] == photo.json)
        await client.close()
    }

    @Test("data changes hold uploads of their priority and below, not above")
    func dataChangesGoFirst() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "t")
        let items = try client.bucket("items")
        try await items.put("a", ["n": 1])
        func waiting(_ priority: ChangePriority) async throws -> Bool {
            try await client.replica.database.read { db in try AttachmentRecords.dataChangesWaiting(db, atOrAbove: priority) }
        }
        let (low, normal, urgent) = (try await waiting(.low), try await waiting(.normal), try await waiting(.urgent))
        #expect(low && normal && !urgent)
        // Sent and not yet acknowledged still counts.
        let sent = try await client.replica.takeOutgoing(bucket: "items", resend: false)
        #expect(try await waiting(.low))
        try await client.acknowledge(sent, bucket: "items")
        #expect(try await waiting(.low) == false)
        await client.close()
    }

    @Test("uploads run by priority, then in the order they were queued, and survive reopening with their progress")
    func queueOrderAndBookkeeping() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        var client: LockstepClient? = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "t")
        let items = try client!.bucket("items")
        let low1 = try await items.attach(testBytes(10, seed: 10), type: "a/b", to: "k1", member: "m")
        let urgent = try await items.attach(testBytes(10, seed: 11), type: "a/b", to: "k2", member: "m", priority: .urgent)
        let low2 = try await items.attach(testBytes(10, seed: 12), type: "a/b", to: "k3", member: "m")
        let normal = try await items.attach(testBytes(10, seed: 13), type: "a/b", to: "k4", member: "m", priority: .normal)
        #expect(try client!.uploads.map(\.attachment) == [urgent, normal, low1, low2])
        try await client!.replica.database.write { db in
            try AttachmentRecords.setProgress(db, urgent.sha256, location: "http://x/1/app/__blobs__/uploads/1", acknowledged: 7)
        }
        client = nil  // killed, not closed

        let reopened = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "t")
        #expect(try reopened.uploads.map(\.attachment) == [urgent, normal, low1, low2])
        #expect(try reopened.uploads.first?.completedBytes == 7)
        let next = try await reopened.replica.database.read(AttachmentRecords.nextUpload)
        #expect(next?.location == "http://x/1/app/__blobs__/uploads/1" && next?.acknowledged == 7)
        await reopened.close()
    }

    @Test("attaching the same bytes twice stores and uploads them once")
    func sameBytesOnce() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "t")
        let items = try client.bucket("items")
        let bytes = testBytes(1000, seed: 20)
        let a = try await items.attach(bytes, type: "image/png", to: "k1", member: "photo")
        let b = try await items.attach(bytes, type: "image/png", to: "k2", member: "photo")
        #expect(a == b)
        #expect(try client.uploads.count == 1)
        // Once uploaded, attaching it again queues nothing.
        try await client.completeUpload(a)
        _ = try await items.attach(bytes, type: "image/png", to: "k3", member: "photo")
        #expect(try client.uploads.isEmpty)
        await client.close()
    }
}
