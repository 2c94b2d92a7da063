public import LockstepCore

/// A store's record that an object referred to a blob, up to a version.
///
/// Kept by the store in the commit that writes the version, so a blob's readers and its
/// liveness are known without reading every object. The record outlives the reference: the
/// object may have dropped it since. It is *live* while the object still refers to the blob,
/// or the history still keeps `lastVersion` (each version up to it that is kept may be read,
/// and a client offline since may bring a change based on it).
public struct BlobReferenceRecord: Sendable, Hashable {
    public var scope: BucketScope
    public var key: String
    public var hash: BlobHash
    /// The latest version of the object that referred to the blob.
    public var lastVersion: Int

    public init(scope: BucketScope, key: String, hash: BlobHash, lastVersion: Int) {
        self.scope = scope
        self.key = key
        self.hash = hash
        self.lastVersion = lastVersion
    }
}

/// The store's side of blobs: the records of which objects referred to which blob.
public protocol BlobReferenceStore: Sendable {
    /// Every record of an object referring to `hash` in the app.
    func blobReferences(appID: String, hash: BlobHash) async throws -> [BlobReferenceRecord]
    /// Deletes a record, unless a later version of its object referred to the blob since
    /// (its `lastVersion` moved on).
    func deleteBlobReference(_ record: BlobReferenceRecord) async throws
}

enum BlobReferences {
    /// Whether the object of `record` still refers to its blob, now or in a version kept.
    static func isLive(_ record: BlobReferenceRecord, in store: any SyncStore) async throws -> Bool {
        if let object = try await store.object(record.scope, key: record.key), !object.isDeleted,
            BlobReference.hashes(in: object.data).contains(record.hash)
        {
            return true
        }
        return try await store.objectData(record.scope, key: record.key, version: record.lastVersion) != nil
    }
}
