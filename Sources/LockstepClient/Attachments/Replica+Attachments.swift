import Foundation
import GRDB
import LockstepCore

extension Replica {
    /// Where attachment bytes come from.
    enum AttachmentSource: Sendable {
        case data(Data)
        case file(URL)
    }

    /// Stores the bytes in the local store, sets member `member` of `key` to a reference to them
    /// (creating the object if there is none) and queues their upload, all durable on return.
    ///
    /// The file is written (and flushed) before the transaction, so a crash between the two
    /// leaves at worst a file nothing refers to, never a reference without its bytes.
    func attach(
        _ source: AttachmentSource, type: String, bucket: String, key: String, member: String, priority: ChangePriority
    ) async throws -> Attachment {
        let files = blobFiles
        let (sha256, size): (String, Int64) = try await Self.offThePool {
            switch source {
            case .data(let data): (try files.store(data), Int64(data.count))
            case .file(let url): try files.store(contentsOf: url)
            }
        }
        let attachment = Attachment(sha256: sha256, size: size, type: type)
        let editTime = editTimes.serverTimeNow()
        let clientID = clientID
        try await writeLocal(bucket: bucket, key: key) { db in
            try AttachmentRecords.recordStored(db, attachment)
            try AttachmentRecords.queueUpload(db, sha256, priority: priority)
            let old = try LocalRecords.local(db, bucket, key)
            if try old == .removed || LocalRecords.ghost(db, bucket, key)?.isDeleted == true {
                throw LockstepClientError.removed(bucket: bucket, key: key)
            }
            var object = old.data ?? [:]
            object[member] = attachment.json
            let new = LocalState.present(object)
            guard new != old else { return [] }
            try LocalRecords.setLocal(db, bucket, key, new)
            try Self.enqueueEdit(db, bucket, key, from: old.data ?? [:], to: object, priority: .normal, at: editTime, by: clientID)
            return BucketEvent.between(old, new, bucket: bucket, key: key, origin: .local).map { [$0] } ?? []
        }
        let upload = try await database.read { db in try AttachmentRecords.upload(db, sha256) }
        transfers.publish(TransferProgress(
            attachment: attachment, direction: .upload, completedBytes: upload?.acknowledged ?? size,
            state: upload == nil ? .completed : .queued))
        return attachment
    }

    /// The attachment member `member` of `key` refers to, as the device holds the object.
    func attachment(bucket: String, key: String, member: String) throws -> Attachment? {
        try object(bucket: bucket, key: key)?[member].flatMap(Attachment.init(json:))
    }

    /// Runs blocking file work (hashing, copying a large file) on a thread of its own: the
    /// cooperative pool has a thread per core, and the sync session runs on it.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}
