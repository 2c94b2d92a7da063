import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Who may refer to a blob and who may read one, against a real server on both stores: a
/// reference goes only to a blob its writer uploaded in full (a known hash is not a key to
/// someone else's photo), and a blob is readable by whoever may read an object referring to it.
@Suite("Blobs: references and who reads", .timeLimit(.minutes(2)))
struct BlobReferenceTests {
    @Test(arguments: StoreKind.allCases)
    func aReferenceNeedsTheWholeBlobUploadedByItsWriter(_ kind: StoreKind) async throws {
        try await TestServer.with(kind) { server in
            let ann = try await server.createUser("ann@example.com")
            let eve = try await server.createUser("eve@example.com")
            let photo = BlobBytes.random(20_000)
            let hash = BlobHash(of: photo)

            // Half-uploaded: no reference yet, and nothing of the change is stored.
            #expect(try await ann.createUpload(photo).status == 201)
            #expect(try await ann.patch(hash, Array(photo[..<10_000]), at: 0).status == 204)
            let early = try await ann.request("POST", "items/i/box", body: ["name": "box", "photo": BlobBytes.reference(hash, size: photo.count)])
            #expect(early.status == 424 && early.errorMessage?.contains("not uploaded in full") == true, "\(early)")
            #expect(try await ann.request("GET", "items/i/box").status == 404)

            #expect(try await ann.patch(hash, Array(photo[10_000...]), at: 10_000).status == 204)
            #expect(try await ann.request("POST", "items/i/box", body: ["name": "box", "photo": BlobBytes.reference(hash, size: photo.count)]).status == 200)
            // Edits of other members keep the reference without naming the blob again.
            #expect(try await ann.request("POST", "items/i/box", body: ["name": "big box"]).status == 200)
            #expect(try await ann.download(hash).body == photo)

            // Eve knows the hash: she may neither read the blob nor refer to it.
            #expect(try await eve.download(hash).status == 404)
            let stolen = try await eve.request("POST", "notes/i/n", body: ["photo": BlobBytes.reference(hash, size: photo.count)])
            #expect(stolen.status == 424, "\(stolen)")
            #expect(try await eve.download(hash).status == 404)
            // Once she has uploaded the same bytes herself, she may (she holds the photo).
            try await eve.upload(photo)
            #expect(try await eve.request("POST", "notes/i/n", body: ["photo": BlobBytes.reference(hash, size: photo.count)]).status == 200)
            #expect(try await eve.download(hash).body == photo)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSpaceMemberReadsWhatAnObjectOfTheSpaceRefersTo(_ kind: StoreKind) async throws {
        try await TestServer.with(kind) { server in
            let ann = try await server.createUser("ann@example.com")
            let bob = try await server.createUser("bob@example.com")
            let cat = try await server.createUser("cat@example.com")
            try await ann.createSpace("job-1")
            try await ann.invite("bob@example.com", as: "writer", to: "job-1")
            let photo = BlobBytes.random(5_000)
            let hash = try await ann.upload(photo)
            #expect(try await bob.download(hash).status == 404)

            let reference = BlobBytes.reference(hash, size: photo.count)
            #expect(try await ann.request("POST", "__job-1.items/i/sofa", body: ["room": "lounge", "photo": reference]).status == 200)
            #expect(try await bob.download(hash).body == photo)
            #expect(try await cat.download(hash).status == 404)
            // Bob edits the item; the photo he did not upload stays, since his change keeps it.
            #expect(try await bob.request("POST", "__job-1.items/i/sofa", body: ["room": "hall"]).status == 200)
            #expect(try await bob.request("GET", "__job-1.items/i/sofa").json?["photo"] == reference)

            // Taken off the job, Bob reads it no more.
            #expect(try await ann.spaces("DELETE", "/job-1/members/bob@example.com").status == 200)
            #expect(try await bob.download(hash).status == 404)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func collectionDeletesOnlyBlobsNothingRefersTo(_ kind: StoreKind) async throws {
        var limits = TestServer.testLimits
        limits.blobGracePeriodSeconds = 0
        limits.historyRetentionSeconds = 0
        limits.retainedVersions = 2
        // History is cut at snapshots: one at every version, so it is cut where the policy says.
        limits.snapshotInterval = 1
        try await TestServer.with(kind, limits: limits) { server in
            let ann = try await server.createUser("ann@example.com")
            let live = try await ann.upload(BlobBytes.random(1_000))
            let orphan = try await ann.upload(BlobBytes.random(1_000))
            let old = try await ann.upload(BlobBytes.random(1_000))
            let blobs = try #require(server.services.blobs)
            let collector = BlobCollector(blobs: blobs, limits: limits, clock: server.services.clock, logger: server.services.logger)

            #expect(try await ann.request("POST", "items/i/a", body: ["photo": BlobBytes.reference(live, size: 1_000)]).status == 200)
            #expect(try await ann.request("POST", "items/i/b", body: ["photo": BlobBytes.reference(old, size: 1_000)]).status == 200)
            // b drops its photo: version 1 still names it, and the history keeps version 1.
            #expect(try await ann.request("POST", "items/i/b?replace=1", body: ["name": "b"]).status == 200)

            let first = try await collector.collect()
            #expect(first.blobs == 1 && first.bytes == 1_000, "\(first)")
            #expect(blobs.directory.completeSize(server.appID, orphan) == nil)
            #expect(blobs.directory.completeSize(server.appID, live) == 1_000)
            #expect(blobs.directory.completeSize(server.appID, old) == 1_000, "a version the history keeps still names it")
            #expect(try await ann.download(old).status == 200)

            // Two more versions of b, and the history drops version 1: nothing names `old` now.
            #expect(try await ann.request("POST", "items/i/b", body: ["name": "b2"]).status == 200)
            #expect(try await ann.request("POST", "items/i/b", body: ["name": "b3"]).status == 200)
            try await server.services.pruner.prunePass()
            let second = try await collector.collect()
            #expect(second.blobs == 1, "\(second)")
            #expect(blobs.directory.completeSize(server.appID, old) == nil)
            #expect(try await ann.download(live).status == 200)

            // An upload abandoned half-way goes too.
            let abandoned = BlobBytes.random(100)
            #expect(try await ann.createUpload(abandoned).status == 201)
            #expect(try await collector.collect().uploads == 1)
            #expect(try await ann.request("HEAD", "__blobs__/uploads/\(BlobHash(of: abandoned).hex)", headers: UserSession.tus).status == 404)
        }
    }
}
