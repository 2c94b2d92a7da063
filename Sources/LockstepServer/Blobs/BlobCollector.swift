import Foundation
import LockstepCore
public import Logging
public import ServiceLifecycle

/// Deletes blobs that nothing refers to any more, and uploads abandoned half-way, in the
/// background.
///
/// Every ``Limits/blobCollectionIntervalSeconds`` it looks at each blob not used (uploaded or
/// newly referred to) for ``Limits/blobGracePeriodSeconds``: a blob stays while a record of an
/// object referring to it is live (the object refers to it now, or its history still keeps
/// the version that did, see ``BlobReferenceRecord``); records that are not live are deleted,
/// and a blob left with none is deleted. The grace period covers the change that refers to a
/// new upload, which follows it from the device, and uploads still under way.
public struct BlobCollector: Service {
    private let blobs: BlobService
    private let limits: Limits
    private let clock: ServerClockSource
    private let logger: Logger

    public init(blobs: BlobService, limits: Limits, clock: ServerClockSource, logger: Logger) {
        self.blobs = blobs
        self.limits = limits
        self.clock = clock
        self.logger = logger
    }

    public func run() async throws {
        guard limits.blobCollectionIntervalSeconds > 0 else { return }
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: .seconds(limits.blobCollectionIntervalSeconds))) != nil {
                do {
                    try await collect()
                } catch {
                    logger.error("blob collection failed; trying again in \(limits.blobCollectionIntervalSeconds) s: \(error)")
                }
            }
        }
    }

    /// What one pass deleted.
    public struct Collection: Sendable, Equatable {
        public var blobs = 0
        public var bytes: Int64 = 0
        public var uploads = 0
    }

    /// One pass over every app's blobs.
    @discardableResult
    public func collect() async throws -> Collection {
        let directory = blobs.directory
        let cutoff = Date(timeIntervalSince1970: Double(clock.now()) / 1e9 - limits.blobGracePeriodSeconds)
        var collection = Collection()
        for appID in directory.apps() {
            for blob in directory.completeBlobs(appID) where blob.lastUsed < cutoff {
                try Task.checkCancellation()
                guard try await !isReferred(blob.hash, appID: appID) else { continue }
                // Used since the listing (a change referred to it meanwhile): it stays.
                guard let size = directory.completeSize(appID, blob.hash),
                    let status = FileStatus(path: directory.blobPath(appID, blob.hash)), status.modified < cutoff
                else { continue }
                directory.delete(appID, blob.hash)
                collection.blobs += 1
                collection.bytes += size
            }
            for upload in directory.staleUploads(appID, before: cutoff) {
                directory.discardUpload(appID, uploader: upload.uploader, upload.hash)
                collection.uploads += 1
            }
        }
        if collection != Collection() {
            logger.info(
                "blob collection: deleted \(collection.blobs) blobs (\(collection.bytes) bytes) nothing refers to, and \(collection.uploads) abandoned uploads")
        }
        return collection
    }

    /// Whether a live record refers to the blob; records found not live are deleted.
    private func isReferred(_ hash: BlobHash, appID: String) async throws -> Bool {
        var referred = false
        for record in try await blobs.store.blobReferences(appID: appID, hash: hash) {
            if try await BlobReferences.isLive(record, in: blobs.store) {
                referred = true
            } else {
                try await blobs.store.deleteBlobReference(record)
            }
        }
        return referred
    }
}
