public import LockstepCore

/// A bucket as it stood at a moment, as far as putting it back needs: where the moment falls in
/// the bucket's feed, and every object changed since, with what it was then.
///
/// The moment falls after the bucket's last change committed at or before it, in feed order
/// (``sequence``): a prefix of the feed, so a state the bucket really was in, even where nodes'
/// clocks disagreed a little about which of two changes came first.
public struct BucketMoment: Sendable, Equatable {
    /// The feed position of the bucket's last change committed at or before the moment; 0 when
    /// there was none (the bucket was empty then).
    public var sequence: Int64
    /// The objects changed after ``sequence``, in key order; the others are as they were then.
    public var changed: [Object]

    public init(sequence: Int64, changed: [Object]) {
        self.sequence = sequence
        self.changed = changed
    }

    /// One object changed since the moment: as it is now, and as it was then.
    public struct Object: Sendable, Equatable {
        public var key: String
        public var version: Int
        public var isDeleted: Bool
        /// The current data (empty for a removed object).
        public var data: JSONObject
        public var then: Then

        public init(key: String, version: Int, isDeleted: Bool, data: JSONObject, then: Then) {
            self.key = key
            self.version = version
            self.isDeleted = isDeleted
            self.data = data
            self.then = then
        }
    }

    /// What an object was at the moment.
    public enum Then: Sendable, Equatable {
        /// It did not exist yet.
        case absent
        /// It was this version, with this data.
        case present(version: Int, data: JSONObject)
        /// It had been removed, at this version.
        case removed(version: Int)
        /// Its version then is no longer retained (older than the history limits keep).
        case notRetained
    }

    /// What a store found for a moment.
    public enum Lookup: Sendable, Equatable {
        case found(BucketMoment)
        /// The moment is older than the bucket's retained history: some change after it was
        /// pruned. `earliest` is a moment the history does reach (nanoseconds since the epoch).
        case beyondHistory(earliest: Int64)
    }

    /// What an object was at the moment, from its last change at or before the moment's feed
    /// position (its version and whether it removed the object; `nil` when no retained change
    /// is), whether any of its history was pruned, and its data at that version.
    package static func then(lastChange: (version: Int, isRemoval: Bool)?, historyPruned: Bool, data: () throws -> JSONObject?) rethrows
        -> Then
    {
        guard let lastChange else { return historyPruned ? .notRetained : .absent }
        if lastChange.isRemoval { return .removed(version: lastChange.version) }
        guard let data = try data() else { return .notRetained }
        return .present(version: lastChange.version, data: data)
    }
}
