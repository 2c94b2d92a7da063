import Foundation
import GRDB
import Logging

/// Runs the upload queue while the sync session runs: one upload at a time, highest priority
/// first, each in chunks from the last byte the server confirmed.
///
/// Data changes go first. An upload does not start while the outbox holds a data change at its
/// priority or above (queued, or sent and not acknowledged yet), and one under way stops
/// between chunks when such a change arrives (or a more urgent upload is queued), to go on
/// from where it stopped afterwards. The default upload priority, ``ChangePriority/low``, puts
/// every photo behind every state change.
///
/// Nothing is lost to a crash or a kill: the queue is in the database, and a restarted upload
/// asks the server how much it holds (`HEAD`), then sends the rest. At most the chunk in flight
/// is sent again, and less if the server kept part of it.
struct AttachmentUploader: Sendable {
    let replica: Replica
    let api: BlobAPI
    let chunkSize: Int
    let backoff: Backoff
    let logger: Logger

    /// Why an upload left off before its end.
    private enum Pause: Error {
        /// A data change, or a more urgent upload, goes first.
        case yielded
    }

    func run() async {
        var failures = 0
        // The upload last told to wait, so listeners hear it once, not every recheck.
        var announced: String?
        while !Task.isCancelled {
            let seen = replica.outboxChanged.generation
            do {
                guard let upload = try await replica.database.read(AttachmentRecords.nextUpload) else {
                    await waitForOutbox(after: seen, atMost: .seconds(5))
                    continue
                }
                if try await mustWait(upload) {
                    if announced != upload.sha256 { publish(upload, upload.acknowledged, .queued) }
                    announced = upload.sha256
                    await waitForOutbox(after: seen, atMost: .milliseconds(500))
                    continue
                }
                announced = nil
                try await send(upload)
                failures = 0
            } catch is Pause {
                continue
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                failures += 1
                logger.info("uploads: \(error); trying again")
                try? await Task.sleep(for: backoff.delay(attempt: failures))
            }
        }
    }

    /// Sends `upload` to its end (or until it yields), resuming from the server's offset.
    private func send(_ upload: UploadRow) async throws {
        let attachment = upload.attachment
        do {
            guard replica.blobFiles.exists(upload.sha256) else { throw AttachmentError.missingLocalFile(sha256: upload.sha256) }
            var (location, offset) = try await resume(upload)
            var restarts = upload.restarts
            var conflicts = 0
            while offset < attachment.size {
                try Task.checkCancellation()
                if try await mustYield(upload) {
                    publish(upload, offset, .queued)
                    throw Pause.yielded
                }
                publish(upload, offset, .transferring)
                let count = Int(min(Int64(chunkSize), attachment.size - offset))
                let (files, from) = (replica.blobFiles, offset)
                let bytes = try await Replica.offThePool { try files.read(upload.sha256, offset: from, count: count) }
                if bytes.count < count { try await checkLocalFile(upload.sha256) }
                switch try await api.patch(location, offset: offset, bytes: bytes) {
                case .offset(let now):
                    offset = now
                    conflicts = 0
                case .conflict:
                    // The server stands elsewhere, or still writes the chunk of a run that was
                    // killed (its connection not yet seen closed): wait a little, more each time,
                    // and ask where it stands.
                    conflicts += 1
                    try await Task.sleep(for: .milliseconds(min(2000, 25 << min(conflicts, 7))))
                    if let now = try await api.offset(at: location) { offset = now } else { (location, offset) = try await api.create(attachment) }
                case .hashMismatch(let message):
                    // The server discarded what it had. Either the device's copy changed since it
                    // was attached (it cannot be uploaded, ever), or bytes were damaged on the
                    // way: then start again from byte 0, a few times.
                    try await checkLocalFile(upload.sha256)
                    restarts += 1
                    guard restarts <= 3 else { throw AttachmentError.refused(status: 460, message: message) }
                    logger.info("upload of \(attachment): the server's hash differed (\(message)); starting again")
                    try await replica.database.write { db in try AttachmentRecords.restart(db, upload.sha256) }
                    (location, offset) = try await api.create(attachment)
                }
                let (savedLocation, savedOffset) = (location, offset)
                try await replica.database.write { db in
                    try AttachmentRecords.setProgress(db, upload.sha256, location: savedLocation, acknowledged: savedOffset)
                }
            }
            try await replica.database.write { db in try AttachmentRecords.complete(db, upload.sha256) }
            publish(upload, attachment.size, .completed)
            // The changes held back for this blob may go now.
            replica.outboxChanged.signal()
        } catch let error as AttachmentError {
            logger.warning("upload of \(attachment) stopped: \(error)")
            try await replica.database.write { db in try AttachmentRecords.fail(db, upload.sha256, error) }
            publish(upload, upload.acknowledged, .failed(error))
        }
    }

    /// Where the upload stands on the server: `HEAD` of its known location, else create it
    /// (which finds an upload of the same blob by this user, if there is one).
    private func resume(_ upload: UploadRow) async throws -> (location: String, offset: Int64) {
        if let location = upload.location, let offset = try await api.offset(at: location) {
            return (location, offset)
        }
        return try await api.create(upload.attachment)
    }

    /// Throws ``AttachmentError/corruptLocalFile(sha256:)`` when the device's copy no longer
    /// hashes to its name.
    private func checkLocalFile(_ sha256: String) async throws {
        let files = replica.blobFiles
        guard try await Replica.offThePool({ try files.currentHash(of: sha256) }) == sha256 else {
            throw AttachmentError.corruptLocalFile(sha256: sha256)
        }
    }

    /// Whether `upload` must wait before it starts: a data change at its priority or above waits.
    private func mustWait(_ upload: UploadRow) async throws -> Bool {
        try await replica.database.read { db in try AttachmentRecords.dataChangesWaiting(db, atOrAbove: upload.priority) }
    }

    /// Whether `upload`, under way, must stop between chunks: a data change at its priority or
    /// above arrived, or another upload is next now (a more urgent one).
    private func mustYield(_ upload: UploadRow) async throws -> Bool {
        try await replica.database.read { db in
            try AttachmentRecords.dataChangesWaiting(db, atOrAbove: upload.priority)
                || AttachmentRecords.nextUpload(db)?.sha256 != upload.sha256
        }
    }

    private func waitForOutbox(after seen: UInt64, atMost limit: Duration) async {
        let wakeup = replica.outboxChanged
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await wakeup.wait(after: seen) }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    private func publish(_ upload: UploadRow, _ bytes: Int64, _ state: TransferProgress.State) {
        replica.transfers.publish(TransferProgress(attachment: upload.attachment, direction: .upload, completedBytes: bytes, state: state))
    }
}
