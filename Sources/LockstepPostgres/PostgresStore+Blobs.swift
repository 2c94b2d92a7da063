public import LockstepCore
public import LockstepServer
import PostgresNIO

/// The records of objects referring to blobs (see ``BlobReferenceStore``), written by commits.
extension PostgresStore {
    public func blobReferences(appID: String, hash: BlobHash) async throws -> [BlobReferenceRecord] {
        try await rows("""
            SELECT owner, bucket, key, last_version FROM blob_references WHERE app_id = \(appID) AND hash = \(hash.hex)
            """).map { row in
            let (owner, bucket, key, lastVersion) = try row.decode((String, String, String, Int64).self)
            return BlobReferenceRecord(
                scope: BucketScope(appID: appID, ownerKey: owner, bucket: bucket), key: key, hash: hash, lastVersion: Int(lastVersion))
        }
    }

    public func deleteBlobReference(_ record: BlobReferenceRecord) async throws {
        try await execute("""
            DELETE FROM blob_references
            WHERE app_id = \(record.scope.appID) AND hash = \(record.hash.hex) AND owner = \(record.scope.ownerKey)
                AND bucket = \(record.scope.bucket) AND key = \(record.key) AND last_version = \(Int64(record.lastVersion))
            """)
    }
}
