import Foundation
import GRDB
@testable import LockstepClient
import LockstepCore
import Testing

/// Attachments between real clients and a real server: uploads, downloads, the order of data
/// changes and photos, a damaged local file, and the download cache's bound.
@Suite("Attachments with a server", .serialized)
struct AttachmentSyncTests {
    @Test("an attachment reaches a second device: the member once uploaded, the bytes on demand; a stranger gets 404")
    func roundTrip() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.createUser()
        let phone = try server.client(token: token, transport: .socket)
        let items = try phone.bucket("items")
        try await items.put("box-1", ["label": "Books"])
        let bytes = testBytes(5_000_000, seed: 40)
        let photo = try await items.attach(bytes, type: "image/jpeg", to: "box-1", member: "photo")
        let progress = phone.progress(of: photo)
        await phone.sync.start()
        try await phone.sync.waitUntilIdle()
        var steps: [TransferProgress] = []
        for await step in progress { steps.append(step) }
        #expect(steps.last?.state == .completed && steps.last?.completedBytes == 5_000_000, "\(steps)")
        #expect(steps.contains { $0.state == .transferring }, "\(steps)")
        #expect(try await server.objects("items", token: token)["box-1"] == ["label": "Books", "photo": photo.json])

        let tablet = try server.client(token: token, transport: .socket)
        let same = try tablet.bucket("items")
        await tablet.sync.start()
        try await tablet.sync.waitUntilIdle()
        let seen = try #require(try same.attachment("photo", of: "box-1"))
        #expect(seen == photo)
        #expect(try await same.data(for: seen) == bytes)

        let stranger = try server.client(token: try await server.createUser(), transport: .polling)
        await #expect(throws: AttachmentError.notFound(sha256: photo.sha256)) {
            _ = try await stranger.bucket("items").data(for: photo)
        }
        await stranger.close()
        await tablet.close()
        await phone.close()
    }

    @Test("a reference copied from another user's object is refused (424) until the SDK uploads the bytes from its cache, then lands")
    func copiedReferenceIsUploadedAgain() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.request("POST", "__options__/i/items", token: server.app.adminToken, body: ["shared": true])
        let ann = try server.client(token: try await server.createUser(), transport: .socket)
        let bytes = testBytes(300_000, seed: 45)
        let photo = try await ann.bucket("items").attach(bytes, type: "image/jpeg", to: "box-1", member: "photo")
        await ann.sync.start()
        try await ann.sync.waitUntilIdle()

        let bobToken = try await server.createUser()
        let bob = try server.client(token: bobToken, transport: .socket)
        let items = try bob.bucket("items")
        await bob.sync.start()
        try await bob.sync.waitUntilIdle()
        let seen = try #require(try items.attachment("photo", of: "box-1"))
        #expect(try await items.data(for: seen) == bytes)
        // Bob puts Ann's photo on another box: the server holds the blob, but not from him.
        let events = items.events
        try await items.put("box-2", ["label": "Copy", "photo": seen.json])
        try await bob.sync.waitUntilIdle()
        #expect(try await server.objects("items", token: bobToken)["box-2"] == ["label": "Copy", "photo": photo.json])
        #expect(try bob.outbox.rejected.isEmpty)
        #expect(try bob.uploads.isEmpty)
        #expect(try items.get("box-2") == ["label": "Copy", "photo": photo.json])
        // Nothing was rolled back on the way.
        let rolledBack = Task { () -> BucketEvent? in
            for await event in events { if case .rejected = event.origin { return event } }
            return nil
        }
        await bob.close()
        #expect(await rolledBack.value == nil)
        await ann.close()
    }

    @Test("100 photos of 2 MB queued offline: every data change is acknowledged before the first photo uploads")
    func dataBeforePhotos() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.createUser()
        let store = temporaryStore()
        defer { removeStore(store) }
        let phone = try server.client(store: store, token: token, transport: .socket)
        let items = try phone.bucket("items")
        // Offline (not syncing): a hundred items, each labelled, photographed and moved.
        for index in 0..<100 {
            let key = "item-\(index)"
            try await items.put(key, ["label": .string("Item \(index)")])
            try await items.attach(testBytes(2_000_000, seed: UInt8(index)), type: "image/jpeg", to: key, member: "photo")
            try await items.update(key) { $0["room"] = "truck" }
        }
        let transfers = phone.transfers
        let firstUploadStart = Task { () -> (ContinuousClock.Instant, Int)? in
            for await step in transfers where step.direction == .upload && step.state == .transferring {
                // The data changes that had not been acknowledged when this upload began.
                let waiting = try? await phone.replica.database.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE status != 'rejected' AND waiting = 0")
                }
                return (.now, waiting ?? -1)
            }
            return nil
        }
        let started = ContinuousClock.now
        await phone.sync.start()
        try await phone.sync.waitUntilIdle(timeout: .seconds(300))
        let (uploadStart, waitingAtStart) = try #require(await firstUploadStart.value)
        #expect(waitingAtStart == 0, "data changes still waiting when the first upload started")

        // The server's feed: every change without a reference comes before the first with one.
        let feed = try await server.feed("items", token: token)
        let carriesPhoto = feed.changes.map { change in change.diff.operations["photo"] != nil }
        let firstPhoto = try #require(carriesPhoto.firstIndex(of: true))
        #expect(!carriesPhoto[firstPhoto...].contains(false), "a data change reached the server after a photo reference")
        #expect(carriesPhoto.filter { $0 }.count == 100)
        let objects = try await server.objects("items", token: token)
        #expect(objects.count == 100 && objects.values.allSatisfy { $0["photo"] != nil && $0["room"] == "truck" })
        print("""
            100 photos × 2 MB behind 100 items: data acknowledged and first upload under way after \
            \(uploadStart - started); all 200 MB uploaded after \(ContinuousClock.now - started); \
            \(feed.changes.count - 100) data changes before the first of 100 references in the feed
            """)
        await phone.close()
    }

    @Test("an upload under way stops between chunks while data changes made meanwhile wait, and goes on from there")
    func uploadYieldsToDataChanges() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        // 10 MB/s up: each 2 MiB chunk takes a fifth of a second.
        let relay = try await CountingRelay.start(targetPort: server.port, bytesPerSecondUp: 10_000_000)
        defer { Task { await relay.stop() } }
        let token = try await server.createUser()
        let store = temporaryStore()
        defer { removeStore(store) }
        let phone = try LockstepClient(
            storeDirectory: store, server: URL(string: "http://127.0.0.1:\(relay.port)")!, app: server.appID, token: token,
            configuration: LockstepClient.Configuration(backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500))))
        let items = try phone.bucket("items")
        let photo = try await items.attach(testBytes(12 << 20, seed: 80), type: "video/mp4", to: "clip", member: "video")
        let progress = phone.progress(of: photo)
        await phone.sync.start()
        var steps: [TransferProgress] = []
        var moving: Task<Void, any Error>?
        for await step in progress {
            steps.append(step)
            if moving == nil && step.completedBytes >= 2 << 20 {
                // Under way: the user moves boxes, one after another without pause, for a good
                // half second (each put waits for its flush): the outbox is never empty meanwhile.
                moving = Task {
                    let until = ContinuousClock.now + .milliseconds(600)
                    var round: Int64 = 0
                    while ContinuousClock.now < until {
                        try await items.put("box-\(round % 10)", ["room": "truck", "round": .integer(round)])
                        round += 1
                    }
                }
            }
        }
        try await moving?.value
        #expect(steps.last?.state == .completed)
        // It stopped mid-way (queued with bytes done), and never went back.
        let paused = try #require(steps.firstIndex { $0.state == .queued && $0.completedBytes > 0 }, "\(steps)")
        #expect(steps[paused...].allSatisfy { $0.completedBytes >= steps[paused].completedBytes })
        #expect(steps[paused].completedBytes < 12 << 20)
        try await phone.sync.waitUntilIdle()
        // The reference came last.
        let feed = try await server.feed("items", token: token)
        #expect(feed.changes.last?.key == "clip" && feed.changes.filter { $0.key == "clip" }.count == 1)
        #expect(relay.bytesUp < (12 << 20) + (256 << 10), "\(relay.bytesUp) bytes up: no chunk went twice")
        await phone.close()
    }

    @Test("a local file altered before its upload ends is refused, the app hears why, and attaching it again uploads it")
    func corruptedLocalFile() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.createUser()
        var configuration = LockstepClient.Configuration(backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)))
        configuration.uploadChunkSize = 1 << 20
        configuration.socketURL = refusedSocketURL
        let store = temporaryStore()
        defer { removeStore(store) }
        let phone = try LockstepClient(storeDirectory: store, server: server.baseURL, app: server.appID, token: token, configuration: configuration)
        let items = try phone.bucket("items")
        let bytes = testBytes(8 << 20, seed: 50)
        let photo = try await items.attach(bytes, type: "image/jpeg", to: "box", member: "photo")
        let progress = phone.progress(of: photo)
        let file = store.appendingPathComponent("attachments").appendingPathComponent(photo.sha256)

        await phone.sync.start()
        var altered = false
        var last: TransferProgress?
        for await step in progress {
            last = step
            if !altered && step.completedBytes >= 1 << 20 {
                // The device's copy changes under the upload: its last megabyte.
                let handle = try FileHandle(forUpdating: file)
                try handle.seek(toOffset: UInt64(bytes.count - 1000))
                try handle.write(contentsOf: Data(repeating: 0xff, count: 10))
                try handle.close()
                altered = true
            }
        }
        #expect(altered)
        #expect(last?.state == .failed(.corruptLocalFile(sha256: photo.sha256)), "\(String(describing: last))")
        #expect(try phone.uploads.first?.state == .failed(.corruptLocalFile(sha256: photo.sha256)))
        // Nothing refers to a blob the server does not hold.
        #expect(try await server.objects("items", token: token)["box"] == nil)
        try await phone.sync.waitUntilIdle()  // a failed upload does not keep the client busy

        // The app attaches the photo again: the copy is repaired and the upload starts over.
        let again = try await items.attach(bytes, type: "image/jpeg", to: "box", member: "photo")
        #expect(again == photo)
        try await phone.sync.waitUntilIdle(timeout: .seconds(120))
        #expect(try await server.objects("items", token: token)["box"] == ["photo": photo.json])
        #expect(try phone.uploads.isEmpty)
        await phone.close()
    }

    @Test("bytes damaged on their way up are refused by the server (460), and the upload starts over from byte 0 and completes")
    func damagedInTransit() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        // One byte of the second chunk's body arrives inverted, once.
        let relay = try await CountingRelay.start(targetPort: server.port, corruptingUpByte: 3_000_000)
        defer { Task { await relay.stop() } }
        let token = try await server.createUser()
        var configuration = LockstepClient.Configuration(backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)))
        configuration.socketURL = refusedSocketURL
        let store = temporaryStore()
        defer { removeStore(store) }
        let phone = try LockstepClient(
            storeDirectory: store, server: URL(string: "http://127.0.0.1:\(relay.port)")!, app: server.appID, token: token,
            configuration: configuration)
        let items = try phone.bucket("items")
        let bytes = testBytes(8 << 20, seed: 55)
        let photo = try await items.attach(bytes, type: "image/jpeg", to: "box", member: "photo")
        let progress = phone.progress(of: photo)
        await phone.sync.start()
        var steps: [TransferProgress] = []
        for await step in progress { steps.append(step) }
        #expect(steps.last?.state == .completed, "\(steps.map(\.completedBytes))")
        // It went to its last chunk (from 6 MiB), was refused at the end, and went again from 0.
        let start = try #require(steps.firstIndex { $0.state == .transferring })
        let restart = try #require(steps[(start + 1)...].firstIndex { $0.completedBytes == 0 }, "\(steps.map(\.completedBytes))")
        #expect(steps[..<restart].contains { $0.completedBytes >= 6 << 20 }, "\(steps.map(\.completedBytes))")
        #expect(relay.bytesUp > 16 << 20 && relay.bytesUp < 17 << 20, "\(relay.bytesUp) bytes sent up")
        try await phone.sync.waitUntilIdle()
        #expect(try await server.objects("items", token: token)["box"] == ["photo": photo.json])
        let other = try server.client(token: token)
        #expect(try await other.bucket("items").data(for: photo) == bytes)
        await other.close()
        await phone.close()
    }

    @Test("a second device downloads within its cache bound, least recently used evicted first")
    func boundedDownloadCache() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.createUser()
        let phone = try server.client(token: token, transport: .socket)
        let items = try phone.bucket("items")
        var photos: [(BlobAttachment, Data)] = []
        for index in 0..<6 {
            let bytes = testBytes(1_000_000, seed: UInt8(60 + index))
            photos.append((try await items.attach(bytes, type: "image/jpeg", to: "item-\(index)", member: "photo"), bytes))
        }
        await phone.sync.start()
        try await phone.sync.waitUntilIdle(timeout: .seconds(120))
        await phone.close()

        var configuration = LockstepClient.Configuration(backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)))
        configuration.attachmentCacheSize = 2_500_000
        let store = temporaryStore()
        defer { removeStore(store) }
        let tablet = try LockstepClient(storeDirectory: store, server: server.baseURL, app: server.appID, token: token, configuration: configuration)
        let same = try tablet.bucket("items")
        await tablet.sync.start()
        try await tablet.sync.waitUntilIdle()
        let downloads = tablet.transfers
        let counted = Task { () -> Int in
            var count = 0
            for await step in downloads where step.direction == .download && step.state == .completed { count += 1 }
            return count
        }
        for (index, (photo, bytes)) in photos.enumerated() {
            let seen = try #require(try same.attachment("photo", of: "item-\(index)"))
            #expect(seen == photo)
            #expect(try await same.data(for: seen) == bytes)
            let stored = try await tablet.replica.database.read(AttachmentRecords.storedBytes)
            #expect(stored <= 2_500_000, "after download \(index)")
        }
        // The two most recent are kept; reading the latest again downloads nothing.
        #expect(tablet.replica.blobFiles.exists(photos[5].0.sha256) && tablet.replica.blobFiles.exists(photos[4].0.sha256))
        #expect(!tablet.replica.blobFiles.exists(photos[0].0.sha256))
        #expect(try await same.data(for: photos[5].0) == photos[5].1)
        // The first was evicted: it comes again from the server.
        #expect(try await same.data(for: photos[0].0) == photos[0].1)
        let files = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("attachments").path)
        #expect(files.count == 2, "\(files)")
        await tablet.close()
        #expect(await counted.value == 7)
    }
}
