package import LockstepCore

/// What the change planner asks before a change adds a reference to a blob: whether its author
/// may refer to it. Answered from inside the store's write transaction, so it must be quick (a
/// few file lookups); ``BlobService`` answers it.
package protocol BlobReferenceChecking: Sendable {
    /// Whether `author` may add a reference to `hash` in `appID`: the blob is held in full, and
    /// the author uploaded it (or is trusted). A yes also marks the blob as just used, so that
    /// collection leaves it alone for another grace period.
    func mayRefer(to hash: BlobHash, appID: String, author: ChangeAuthor) -> Bool
}

/// A server that keeps no blobs: no change may add a reference to one.
struct NoBlobs: BlobReferenceChecking {
    func mayRefer(to hash: BlobHash, appID: String, author: ChangeAuthor) -> Bool { false }
}
