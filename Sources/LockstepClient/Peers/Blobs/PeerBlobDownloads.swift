import Crypto
import LockstepCore
import Foundation
import Logging
import Synchronization

/// The attachment bytes this device fetches from one peer over one link.
///
/// Bytes go, a chunk at a time, to `<store>/attachments/.peer-<hex>`, hashed as they arrive, so
/// memory stays flat whatever the size of a photo. When the last byte is in, the file is flushed,
/// its SHA-256 checked against the name the reference gave, and only then renamed to its hash
/// (and recorded in the store): a peer cannot plant bytes under a hash they do not have, and a
/// blob is never seen half-written. Bytes that hash otherwise are dropped.
///
/// A cut link leaves the partial file in place: the next link (to this peer or another) hashes
/// what it holds again and asks only for the rest. One link at a time fetches a given blob
/// into a given store (``claims``), so two peers never write the same partial file.
final class PeerBlobDownloads {
    private struct Download {
        var attachment: Attachment
        var handle: FileHandle
        var hasher: SHA256
        var count: Int64
    }

    private let replica: Replica
    private let logger: Logger
    private var downloads: [String: Download] = [:]

    /// The partial files some link of this process is writing now.
    private static let claims = Mutex(Set<String>())

    init(replica: Replica, logger: Logger) {
        self.replica = replica
        self.logger = logger
    }

    /// How many blobs this link is waiting for.
    var pending: Int { downloads.count }

    /// Starts fetching the attachments of `attachments` the device lacks and no link fetches
    /// yet; returns what to ask the peer for (each from what a partial file already holds).
    func requests(for attachments: [Attachment]) async throws -> [PeerBlobMessage.Request] {
        var requests: [PeerBlobMessage.Request] = []
        for attachment in Set(attachments) where downloads[attachment.sha256] == nil && !replica.blobFiles.exists(attachment.sha256) {
            let partial = partialURL(attachment.sha256)
            guard Self.claims.withLock({ $0.insert(partial.path).inserted }) else { continue }
            do {
                let download = try Self.open(partial, for: attachment)
                downloads[attachment.sha256] = download
                if download.count == attachment.size {
                    _ = try await finish(attachment.sha256)
                } else {
                    requests.append(.init(sha256: attachment.sha256, size: attachment.size, from: download.count))
                }
            } catch {
                Self.claims.withLock { _ = $0.remove(partial.path) }
                throw error
            }
        }
        return requests
    }

    /// Appends a chunk the peer sent; returns whether it completed its blob, checked and in the
    /// store (bytes that hash otherwise are dropped: `false`).
    func take(_ chunk: PeerBlobMessage.Chunk) async throws -> Bool {
        guard var download = downloads[chunk.sha256] else { return false }  // asked by an earlier link, or dropped
        guard chunk.size == download.attachment.size, chunk.offset == download.count else {
            throw PeerSyncError.protocolViolation("a blob chunk at \(chunk.offset) of \(chunk.size), expected \(download.count)")
        }
        let bytes = Data(chunk.bytes)
        try download.handle.write(contentsOf: bytes)
        download.hasher.update(data: bytes)
        download.count += Int64(bytes.count)
        downloads[chunk.sha256] = download
        guard download.count == download.attachment.size else { return false }
        return try await finish(chunk.sha256)
    }

    /// The peer does not hold `sha256`: stop waiting for it (a later link may ask again).
    func forget(_ sha256: String) {
        guard let download = downloads.removeValue(forKey: sha256) else { return }
        release(download)
    }

    /// Ends every fetch of this link, keeping the partial files for the next one.
    func close() {
        for download in downloads.values { release(download) }
        downloads = [:]
    }

    /// Checks and keeps a blob whose last byte is in; `false` when its bytes were wrong.
    private func finish(_ sha256: String) async throws -> Bool {
        guard let download = downloads.removeValue(forKey: sha256) else { return false }
        defer { Self.claims.withLock { _ = $0.remove(partialURL(sha256).path) } }
        let partial = partialURL(sha256)
        try download.handle.synchronize()
        try download.handle.close()
        let actual = BlobHash(digest: download.hasher.finalize()).hex
        guard actual == sha256 else {
            logger.warning("a peer sent bytes of \(download.attachment) that hash to \(actual); dropped")
            try? FileManager.default.removeItem(at: partial)
            return false
        }
        let target = replica.blobFiles.url(for: sha256)
        guard rename(partial.path, target.path) == 0 else {
            throw AttachmentError.localStore("cannot rename into \(target.path): errno \(errno)")
        }
        replica.blobFiles.syncDirectory()
        try await replica.recordFromPeer(download.attachment)
        return true
    }

    private func release(_ download: Download) {
        try? download.handle.close()
        Self.claims.withLock { _ = $0.remove(partialURL(download.attachment.sha256).path) }
    }

    private func partialURL(_ sha256: String) -> URL {
        precondition(Attachment.isHash(sha256))
        return replica.blobFiles.directory.appendingPathComponent(".peer-" + sha256)
    }

    /// Opens (or creates) the partial file and hashes what it holds; one longer than the blob
    /// is damaged and starts over.
    private static func open(_ partial: URL, for attachment: Attachment) throws -> Download {
        if !FileManager.default.fileExists(atPath: partial.path) {
            guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
                throw AttachmentError.localStore("cannot create \(partial.path)")
            }
        }
        let handle = try FileHandle(forUpdating: partial)
        var (hasher, count) = try BlobFiles.hashing(handle)
        if count > attachment.size {
            try handle.truncate(atOffset: 0)
            (hasher, count) = (SHA256(), 0)
        }
        try handle.seek(toOffset: UInt64(count))
        return Download(attachment: attachment, handle: handle, hasher: hasher, count: count)
    }
}
