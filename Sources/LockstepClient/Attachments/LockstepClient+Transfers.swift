import GRDB

extension LockstepClient {
    /// The progress of every attachment upload and download from now on, as it happens.
    /// Ends when the client is closed.
    public var transfers: AsyncStream<TransferProgress> {
        replica.transfers.stream(buffering: TransferProgress.buffering)
    }

    /// The progress of `attachment`'s transfers: first where it stands now (its upload queued
    /// at the bytes the server confirmed, or completed when the device or the server holds it
    /// whole), then each step, until one finishes (completes or fails).
    public func progress(of attachment: Attachment) -> AsyncStream<TransferProgress> {
        let sha256 = attachment.sha256
        let updates = replica.transfers.stream(buffering: TransferProgress.buffering) { $0.attachment.sha256 == sha256 }
        let now = try? current(attachment)
        return AsyncStream { continuation in
            let relay = Task {
                if let now {
                    continuation.yield(now)
                    if now.isFinished { return continuation.finish() }
                }
                for await progress in updates {
                    continuation.yield(progress)
                    if progress.isFinished { break }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }

    /// The uploads not completed, in the order they will run, each as far as the server
    /// confirmed; those that failed for good are among them, in state `.failed` with their error.
    public var uploads: [TransferProgress] {
        get throws {
            try replica.database.read { db in try AttachmentRecords.uploads(db) }.map(Self.progress(of:))
        }
    }

    private func current(_ attachment: Attachment) throws -> TransferProgress? {
        let sha256 = attachment.sha256
        let (upload, stored, uploaded) = try replica.database.read { db in
            (try AttachmentRecords.upload(db, sha256), try AttachmentRecords.isStored(db, sha256), try AttachmentRecords.isUploaded(db, sha256))
        }
        if let upload { return Self.progress(of: upload) }
        guard stored || uploaded else { return nil }
        return TransferProgress(
            attachment: attachment, direction: uploaded ? .upload : .download, completedBytes: attachment.size, state: .completed)
    }

    private static func progress(of upload: UploadRow) -> TransferProgress {
        let state: TransferProgress.State = upload.error.map { .failed($0) } ?? .queued
        return TransferProgress(attachment: upload.attachment, direction: .upload, completedBytes: upload.acknowledged, state: state)
    }
}
