/// What history reads from a store: an object's versions with who made them and when, and a
/// bucket as it stood at a moment (``HistoryService``). Not on the write path: the write path
/// only records each change's author (``ChangeRequest/author``) and commit time.
public protocol HistoryStore: Sendable {
    /// The retained versions of an object from `oldest` through `newest`, oldest first, each
    /// with its data (none for a removal's) and who made it: those of the range that are
    /// still retained (none when there is no such object).
    func versions(_ scope: BucketScope, key: String, from oldest: Int, through newest: Int) async throws -> [VersionRecord]

    /// The bucket as it stood at server time `time` (nanoseconds since the Unix epoch): after
    /// its last change committed at or before it (see ``BucketMoment``).
    func moment(_ scope: BucketScope, at time: Int64) async throws -> BucketMoment.Lookup
}
