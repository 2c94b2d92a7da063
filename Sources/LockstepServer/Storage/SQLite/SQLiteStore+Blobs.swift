import GRDB
public import LockstepCore

/// The records of objects referring to blobs (see ``BlobReferenceStore``), written by commits.
extension SQLiteStore {
    public func blobReferences(appID: String, hash: BlobHash) async throws -> [BlobReferenceRecord] {
        try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT owner, bucket, key, last_version FROM blob_references WHERE app_id = ? AND hash = ?"),
                arguments: [appID, hash.hex]
            ).map { row in
                BlobReferenceRecord(
                    scope: BucketScope(appID: appID, ownerKey: row["owner"], bucket: row["bucket"]), key: row["key"], hash: hash,
                    lastVersion: row["last_version"])
            }
        }
    }

    public func deleteBlobReference(_ record: BlobReferenceRecord) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    DELETE FROM blob_references
                    WHERE app_id = ? AND hash = ? AND owner = ? AND bucket = ? AND key = ? AND last_version = ?
                    """,
                arguments: [
                    record.scope.appID, record.hash.hex, record.scope.ownerKey, record.scope.bucket, record.key, record.lastVersion,
                ])
        }
    }
}
