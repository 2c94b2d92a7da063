import Crypto
import Foundation
@testable import LockstepClient
import LockstepCore
import Logging
import Testing

/// The receiving end of peer blob transfers, message by message, without a link.
@Suite("Peer blob downloads")
struct PeerBlobDownloadTests {
    @Test("a partial file left by a cut link is asked for from its end, and completes into the store")
    func resumesFromPartialFile() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "token")
        defer { Task { await client.close() } }
        let bytes = testBytes(300_000, seed: 7)
        let photo = BlobAttachment(sha256: BlobHash(digest: SHA256.hash(data: bytes)).hex, size: Int64(bytes.count), type: "image/jpeg")
        let partial = client.replica.blobFiles.directory.appendingPathComponent(".peer-" + photo.sha256)
        try bytes.prefix(100_000).write(to: partial)

        let downloads = PeerBlobDownloads(replica: client.replica, logger: Logger(label: "test"))
        #expect(try await downloads.requests(for: [photo]) == [.init(sha256: photo.sha256, size: photo.size, from: 100_000)])
        #expect(try await downloads.requests(for: [photo]).isEmpty, "asked once")
        let rest = PeerBlobMessage.chunk(sha256: photo.sha256, offset: 100_000, size: photo.size, bytes: bytes.suffix(from: 100_000))
        #expect(try await downloads.take(try #require(try PeerBlobMessage.chunk(in: rest))))
        #expect(try await client.bucket("items").data(for: photo) == bytes)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
        #expect(try await downloads.requests(for: [photo]).isEmpty, "held now")
    }

    @Test("bytes that do not hash to the reference are dropped, and asked for again from byte 0 by a later link")
    func dropsWrongBytes() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "token")
        defer { Task { await client.close() } }
        let bytes = testBytes(50_000, seed: 8)
        let photo = BlobAttachment(sha256: BlobHash(digest: SHA256.hash(data: bytes)).hex, size: Int64(bytes.count), type: "image/jpeg")
        let downloads = PeerBlobDownloads(replica: client.replica, logger: Logger(label: "test"))
        _ = try await downloads.requests(for: [photo])
        var forged = bytes
        forged[10] ^= 0xff
        let chunk = PeerBlobMessage.chunk(sha256: photo.sha256, offset: 0, size: photo.size, bytes: forged)
        #expect(try await !downloads.take(try #require(try PeerBlobMessage.chunk(in: chunk))))
        #expect(!client.replica.blobFiles.exists(photo.sha256))
        #expect(try await client.replica.database.read { db in try AttachmentRecords.isStored(db, photo.sha256) } == false)
        downloads.close()
        let later = PeerBlobDownloads(replica: client.replica, logger: Logger(label: "test"))
        #expect(try await later.requests(for: [photo]) == [.init(sha256: photo.sha256, size: photo.size, from: 0)])
        later.close()
    }

    @Test("a chunk out of order, or past the blob's end, ends the link")
    func refusesMisplacedChunks() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "token")
        defer { Task { await client.close() } }
        let bytes = testBytes(1_000, seed: 9)
        let photo = BlobAttachment(sha256: BlobHash(digest: SHA256.hash(data: bytes)).hex, size: Int64(bytes.count), type: "image/jpeg")
        let downloads = PeerBlobDownloads(replica: client.replica, logger: Logger(label: "test"))
        defer { downloads.close() }
        _ = try await downloads.requests(for: [photo])
        let skipped = PeerBlobMessage.chunk(sha256: photo.sha256, offset: 500, size: photo.size, bytes: bytes.suffix(from: 500))
        let skippedChunk = try #require(try PeerBlobMessage.chunk(in: skipped))
        await #expect(throws: PeerSyncError.self) { try await downloads.take(skippedChunk) }
        let past = PeerBlobMessage.chunk(sha256: photo.sha256, offset: 900, size: photo.size, bytes: bytes.prefix(200))
        #expect(throws: PeerSyncError.self) { try PeerBlobMessage.chunk(in: past) }
    }
}
