import Foundation
import GRDB
@testable import LockstepClient
import LockstepCore
import Testing

/// The device's attachment files: content-addressed, written whole, checked by their hash,
/// and evicted least recently used first, never while waiting to upload.
@Suite("Attachment files and cache")
struct AttachmentCacheTests {
    @Test("files are named by their SHA-256; a damaged one no longer hashes to its name; leftovers go")
    func contentAddressedFiles() throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let files = try BlobFiles(storeDirectory: store)
        let bytes = Data("hello".utf8)
        let sha256 = try files.store(bytes)
        #expect(sha256 == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
        #expect(try files.currentHash(of: sha256) == sha256)
        #expect(try files.read(sha256, offset: 1, count: 3) == Data("ell".utf8))

        // Altered in place: the name no longer matches, and storing the bytes again repairs it.
        try Data("jello".utf8).write(to: files.url(for: sha256))
        #expect(try files.currentHash(of: sha256) != sha256)
        #expect(try files.store(bytes) == sha256)
        #expect(try files.currentHash(of: sha256) == sha256)

        // A writer that never finished (a process killed mid-write) leaves a temporary file.
        let unfinished = try BlobWriter(files: files)
        try unfinished.append(Data(count: 10))
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.directory.path).count == 2)
        files.removeLeftovers()
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.directory.path) == [sha256])
    }

    @Test("a large file is copied in and hashed a buffer at a time")
    func largeFile() throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        let source = store.appendingPathComponent("source.bin")
        let bytes = testBytes(3 * BlobFiles.bufferSize + 17, seed: 5)
        try bytes.write(to: source)
        let files = try BlobFiles(storeDirectory: store)
        let (sha256, size) = try files.store(contentsOf: source)
        #expect(size == Int64(bytes.count))
        #expect(sha256 == (try files.store(bytes)))
        #expect(try Data(contentsOf: files.url(for: sha256)) == bytes)
    }

    @Test("references are found at any depth, and only well-formed hashes count")
    func references() throws {
        let a = BlobAttachment(sha256: String(repeating: "a", count: 64), size: 3, type: "image/jpeg")
        let b = BlobAttachment(sha256: String(repeating: "b", count: 64), size: 4, type: "image/png")
        let value: JSONValue = ["title": "x", "photos": [a.json, ["nested": b.json]]]
        #expect(Set(BlobAttachment.references(in: value)) == [a, b])
        #expect(BlobAttachment(json: a.json) == a)
        for bad in ["sha256:../../etc/passwd", "sha256:" + String(repeating: "A", count: 64), "md5:" + String(repeating: "a", count: 64)] {
            #expect(BlobAttachment(json: ["$blob": .string(bad), "size": 1]) == nil)
        }
    }

    @Test("the cache evicts the least recently used first, never an upload waiting, nor the one asked for")
    func leastRecentlyUsedEviction() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        var configuration = LockstepClient.Configuration()
        configuration.attachmentCacheSize = 3000
        let client = try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "t", configuration: configuration)
        let items = try client.bucket("items")
        var attached: [BlobAttachment] = []
        for seed in UInt8(0)..<4 {
            attached.append(try await items.attach(testBytes(1000, seed: seed), type: "a/b", to: "k\(seed)", member: "m"))
        }
        // 4000 bytes over a 3000-byte bound, but every one waits to upload: all kept.
        #expect(attached.allSatisfy { client.replica.blobFiles.exists($0.sha256) })

        for attachment in attached.prefix(3) { try await client.completeUpload(attachment) }
        // Used in the order 2, 0, 1: 2 is the least recent.
        for index in [2, 0, 1] {
            _ = try await items.data(for: attached[index])
            try await Task.sleep(for: .milliseconds(5))
        }
        try await client.attachments.trim()
        #expect(!client.replica.blobFiles.exists(attached[2].sha256))
        #expect([0, 1, 3].allSatisfy { client.replica.blobFiles.exists(attached[$0].sha256) })
        let stored = try await client.replica.database.read(AttachmentRecords.storedBytes)
        #expect(stored == 3000)
        await client.close()
    }
}
