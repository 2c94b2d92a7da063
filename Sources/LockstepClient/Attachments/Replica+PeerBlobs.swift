import Foundation
import GRDB
import LockstepCore

extension Replica {
    /// The attachments the objects of `bucket` refer to whose bytes the device does not hold:
    /// what a new peer link asks for first (a cut link's leftovers among them).
    func missingAttachments(bucket: String) async throws -> [Attachment] {
        let files = blobFiles
        return try await database.read { db in
            var missing: Set<Attachment> = []
            let rows = try String.fetchCursor(
                db.cachedStatement(sql: "SELECT data FROM objects WHERE bucket = ? AND data IS NOT NULL"), arguments: [bucket])
            while let text = try rows.next() {
                for attachment in Attachment.references(in: .object(try LocalRecords.decode(text))) where !files.exists(attachment.sha256) {
                    missing.insert(attachment)
                }
            }
            return Array(missing)
        }
    }

    /// Records bytes a peer sent, checked and in place: the app reads them like its own.
    ///
    /// No upload is queued here. A change carried from the peer that adds a reference to them
    /// goes to the server as it came; if this user has not uploaded the blob the server
    /// refuses it (424), and ``AttachmentHolds/uploadReferences(_:_:)`` queues the upload from
    /// this copy and sends the change again. So whichever device reaches the server first
    /// uploads, and the other finds the reference already in the object.
    func recordFromPeer(_ attachment: Attachment) async throws {
        try await database.write { db in try AttachmentRecords.recordStored(db, attachment) }
        transfers.publish(TransferProgress(attachment: attachment, direction: .download, completedBytes: attachment.size, state: .completed))
    }
}
