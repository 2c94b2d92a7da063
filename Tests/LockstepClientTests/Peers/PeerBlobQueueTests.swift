import Crypto
import Foundation
@testable import LockstepClient
import Testing

/// The holding end of peer blob transfers: what goes out, in which order, how far ahead.
@Suite("Peer blob queue")
struct PeerBlobQueueTests {
    @Test("chunks go in order, no more than the window ahead of the peer's taken messages; a blob the device lacks gets noBlob")
    func windowAndOrder() throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let files = try BlobFiles(storeDirectory: store)
        let bytes = testBytes(20 * 1_000, seed: 11)
        let sha256 = try files.store(bytes)
        let queue = PeerBlobQueue()
        queue.serve([.init(sha256: sha256, size: Int64(bytes.count), from: 2_000)])

        var received = Data()
        for _ in 0..<PeerBlobQueue.window {
            let message = try #require(try queue.nextChunk(files: files, chunkBytes: 1_000))
            let chunk = try #require(try PeerBlobMessage.chunk(in: message))
            #expect(chunk.offset == Int64(2_000 + received.count))
            received += chunk.bytes
        }
        #expect(try queue.nextChunk(files: files, chunkBytes: 1_000) == nil, "the window is full")
        for _ in 0..<PeerBlobQueue.window { queue.taken() }
        while let message = try queue.nextChunk(files: files, chunkBytes: 1_000) {
            received += try #require(try PeerBlobMessage.chunk(in: message)).bytes
            queue.taken()
        }
        #expect(received == bytes.suffix(from: 2_000))

        let absent = String(repeating: "d", count: 64)
        queue.serve([.init(sha256: absent, size: 10, from: 0)])
        #expect(try queue.nextChunk(files: files, chunkBytes: 1_000) == PeerBlobMessage.noBlob(absent))
        #expect(try queue.nextChunk(files: files, chunkBytes: 1_000) == nil)
    }
}
