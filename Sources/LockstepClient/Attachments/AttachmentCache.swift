import Foundation
import GRDB
import Synchronization

/// Attachment bytes on demand: the device's copy when it has one, else downloaded from the
/// server, checked against its SHA-256, and kept in a cache of bounded size.
///
/// When the cache outgrows its bound, the least recently used files go first. Files waiting to
/// upload are never evicted (they are the only copy), and neither is the one just asked for,
/// even when it alone is larger than the bound. Two callers asking for the same attachment at
/// once share one download.
final class AttachmentCache: Sendable {
    let replica: Replica
    let api: BlobAPI
    /// The most bytes of attachments kept on the device, uploads waiting aside.
    let limit: Int64
    private let downloads = Mutex<[String: Task<Void, any Error>]>([:])

    init(replica: Replica, api: BlobAPI, limit: Int64) {
        self.replica = replica
        self.api = api
        self.limit = limit
    }

    /// The local file holding `attachment`'s bytes, downloaded first if the device has none.
    /// Read it soon: a later download may evict it.
    func file(for attachment: Attachment) async throws -> URL {
        guard Attachment.isHash(attachment.sha256) else { throw AttachmentError.notAnAttachment(attachment.sha256) }
        let sha256 = attachment.sha256
        let files = replica.blobFiles
        let held = try await replica.database.write { db -> Bool in
            guard try AttachmentRecords.isStored(db, sha256), files.exists(sha256) else { return false }
            try AttachmentRecords.touch(db, sha256)
            return true
        }
        if held { return files.url(for: sha256) }
        let task = downloads.withLock { downloads in
            if let running = downloads[sha256] { return running }
            let started = Task { try await self.download(attachment) }
            downloads[sha256] = started
            return started
        }
        defer { _ = downloads.withLock { $0.removeValue(forKey: sha256) } }
        try await task.value
        return files.url(for: sha256)
    }

    /// The bytes of `attachment`, downloaded first if the device has none.
    func data(for attachment: Attachment) async throws -> Data {
        // A download by someone else may evict the file between finding and reading it: once.
        for _ in 0..<2 {
            let url = try await file(for: attachment)
            if let data = try? Data(contentsOf: url) { return data }
        }
        throw AttachmentError.localStore("attachment \(attachment) was evicted while being read")
    }

    private func download(_ attachment: Attachment) async throws {
        let transfers = replica.transfers
        func publish(_ bytes: Int64, _ state: TransferProgress.State) {
            transfers.publish(TransferProgress(attachment: attachment, direction: .download, completedBytes: bytes, state: state))
        }
        publish(0, .transferring)
        let writer = try BlobWriter(files: replica.blobFiles)
        var received: Int64 = 0
        do {
            var reported: Int64 = 0
            try await api.download(attachment.sha256, into: writer) { bytes in
                // A step per MiB (or the end) is plenty for a progress bar.
                if bytes - reported >= 1 << 20 || bytes == attachment.size {
                    reported = bytes
                    publish(bytes, .transferring)
                }
            }
            received = writer.count
            _ = try writer.finish(expecting: attachment.sha256)
        } catch {
            writer.discard()
            if let error = error as? AttachmentError { publish(0, .failed(error)) }
            throw error
        }
        // The bytes are what the hash names; the size is theirs, whatever the reference said.
        let stored = Attachment(sha256: attachment.sha256, size: received, type: attachment.type)
        let limit = limit
        let evicted = try await replica.database.write { db in
            try AttachmentRecords.recordStored(db, stored)
            return try AttachmentRecords.evict(db, toFit: limit, keeping: attachment.sha256)
        }
        for sha256 in evicted { replica.blobFiles.remove(sha256) }
        publish(received, .completed)
    }

    /// Evicts what no longer fits; after an attach, which adds to the cache too.
    func trim() async throws {
        let limit = limit
        let evicted = try await replica.database.write { db in try AttachmentRecords.evict(db, toFit: limit, keeping: nil) }
        for sha256 in evicted { replica.blobFiles.remove(sha256) }
    }
}
