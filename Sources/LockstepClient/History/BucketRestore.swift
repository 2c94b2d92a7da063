/// What restoring a bucket to a moment changes, or changed (``Bucket/restore(to:dryRun:)``).
public struct BucketRestore: Sendable, Equatable {
    /// Objects put back to their data at the moment.
    public var putBack: Int
    /// Objects made after the moment, removed.
    public var removed: Int
    /// Objects that existed at the moment and were removed since: they stay removed, as removed
    /// objects always do.
    public var stayRemoved: [String]
    /// Objects whose restore the merge rules refused as it committed (a device removed one
    /// meanwhile), with the server's reason.
    public var refused: [String: String]
    /// Whether this only says what a restore would do.
    public var dryRun: Bool

    /// How many objects change.
    public var changes: Int { putBack + removed }
}
