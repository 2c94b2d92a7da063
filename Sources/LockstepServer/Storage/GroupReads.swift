package import LockstepCore

/// An object in a bucket.
package struct ObjectAddress: Sendable, Hashable {
    package let scope: BucketScope
    package let key: String
    /// Hashed once, as ``BucketScope`` is: a group's plan looks each address up several times.
    private let hashCode: Int

    package init(scope: BucketScope, key: String) {
        self.scope = scope
        self.key = key
        var hasher = Hasher()
        hasher.combine(scope)
        hasher.combine(key)
        hashCode = hasher.finalize()
    }

    package static func == (lhs: ObjectAddress, rhs: ObjectAddress) -> Bool {
        lhs.hashCode == rhs.hashCode && lhs.key == rhs.key && lhs.scope == rhs.scope
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(hashCode)
    }
}

/// A bucket's feed position at the start of a group: its epoch and its last sequence number.
package struct FeedPosition: Sendable, Equatable {
    package var epoch: UInt32
    package var sequence: Int64

    package init(epoch: UInt32, sequence: Int64) {
        self.epoch = epoch
        self.sequence = sequence
    }
}

/// What planning a group reads from a store, inside the group's transaction, as the store
/// stood before the group: the store's side of ``GroupPlan``.
///
/// The SQLite store reads lazily from its write transaction; the PostgreSQL store, whose
/// queries are asynchronous, reads everything the group needs first (under the buckets' row
/// locks) and answers from memory.
package protocol GroupReads {
    /// The bucket's feed position, creating the bucket (and drawing its epoch) if needed.
    func feedPosition(of scope: BucketScope) throws -> FeedPosition
    /// The app's last position in its app-wide commit order (`GET /all`); `nil` when the app
    /// has no row (its changes then take position 0).
    func appSequence(of appID: String) throws -> Int64?
    func object(at address: ObjectAddress) throws -> StoredObject?
    /// The change a client change id was accepted as, if it was.
    func acceptedChange(_ scope: BucketScope, changeID: String) throws -> ChangeRecord?
    /// The object's history from `version` (or from the latest snapshot before it) through its
    /// current version `current`; `nil` when that part of the history is no longer retained.
    func timeline(at address: ObjectAddress, from version: Int, through current: StoredObject) throws -> ObjectTimeline?
}

/// An object as a group leaves it.
package struct WrittenObject: Sendable {
    package var object: StoredObject
    /// `object.data` as the store keeps it, as the planner made it.
    package var storedData: String
}

/// What a group commit writes, and the answer for each of its changes.
package struct GroupWrites: Sendable {
    /// One accepted change, in commit order.
    package struct Accepted: Sendable {
        package var scope: BucketScope
        /// The change, with its feed sequence.
        package var change: ChangeRecord
        package var appSequence: Int64
        /// Whether the store keeps a snapshot of this version's data (see ``ObjectTimeline``).
        package var keepsSnapshot: Bool
        /// The object's data at this version (for the snapshot).
        package var data: JSONObject
        /// The blobs this version refers to: the store records that the object referred to
        /// each, as of this version (see ``BlobReferenceRecord``).
        package var blobs: [BlobHash]
        /// `data` as the store keeps it: the value a webhook event carries.
        package var storedData: String
        /// The change's place in the group's requests (who sent it, and what for).
        package var request: Int
        /// Who made the change, kept with it for history.
        package var author: ChangeAuthor
        /// For a restore, the version it put back (``ChangeRequest/restoredFrom``).
        package var restoredFrom: Int?
    }

    package var accepted: [Accepted] = []
    /// Each object the group changed, as the group left it, with the sequence of its last change.
    package var objects: [ObjectAddress: WrittenObject] = [:]
    /// Each bucket the group wrote, at its new position.
    package var feeds: [BucketScope: FeedPosition] = [:]
    /// Each app's new last commit position.
    package var appSequences: [String: Int64] = [:]
    /// The outcome of each request, in the group's order.
    package var outcomes: [ChangeOutcome] = []
}

extension GroupWrites {
    /// Moves the app-wide commit positions of a group planned as if each app's order were at 0
    /// to follow `lastPositions`, each app's last position as the store holds it under the
    /// app's lock; an app missing there has no row, and its changes take position 0.
    ///
    /// So a store may plan a group before it takes its apps' locks, and hold those only while
    /// the group is written: groups on other buckets of the same apps are planned meanwhile.
    package mutating func placeInAppOrder(after lastPositions: [String: Int64]) {
        for index in accepted.indices {
            if let last = lastPositions[accepted[index].scope.appID] {
                accepted[index].appSequence += last
            } else {
                accepted[index].appSequence = 0
            }
        }
        for (appID, position) in appSequences {
            appSequences[appID] = lastPositions[appID].map { $0 + position }
        }
    }
}
