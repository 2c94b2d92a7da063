/// Who made an edit and when, in corrected (server) time: what the merge rules compare.
public struct EditStamp: Sendable, Hashable, Codable {
    /// When the edit was made, in nanoseconds since the Unix epoch on the server's clock, as the
    /// editing device's ``ServerClock`` estimated it. `nil` for clients that send no time
    /// (unmodified Simperium clients), whose edits are ordered by arrival.
    public var time: Int64?
    /// The client that made the edit; breaks ties between equal times.
    public var clientID: String

    public init(time: Int64?, clientID: String) {
        self.time = time
        self.clientID = clientID
    }
}

/// The rules that make every replica resolve concurrent edits the same way.
///
/// 1. A change made against the current version applies as it is.
/// 2. A change made against an older version is rebased over the changes since: edits to
///    different fields both land, concurrent edits of one string merge as text patches where
///    the patches apply, and otherwise the edit with the later corrected time wins, ties broken
///    by client id. When either edit carries no time, arrival order decides (the later
///    arrival wins, as Simperium's own server does).
/// 3. A removed object is a tombstone: later edits to it are ignored, and it never reappears.
/// 4. A change whose client change id was seen before is acknowledged again, not applied twice.
///
/// Rules 3 and 4 are the store's to keep (it holds tombstones and seen change ids); rule 2 is here.
public enum MergeRules {
    /// Which of two concurrent edits wins where they collide.
    public static func winner(incoming: EditStamp, applied: EditStamp) -> ConflictWinner {
        guard let incomingTime = incoming.time, let appliedTime = applied.time else { return .incoming }
        if incomingTime != appliedTime { return incomingTime > appliedTime ? .incoming : .applied }
        return applied.clientID.utf8.lexicographicallyPrecedes(incoming.clientID.utf8) ? .incoming : .applied
    }

    /// Rebases `diff`, made against `base`, over the changes applied since, oldest first, so
    /// that it applies to the current version.
    public static func rebase(
        _ diff: ObjectDiff, stamp: EditStamp, base: JSONObject, over history: some Sequence<(diff: ObjectDiff, stamp: EditStamp)>
    ) throws(DiffError) -> ObjectDiff {
        var rebased = diff
        var state = base
        for applied in history {
            if rebased.isEmpty { break }
            rebased = try rebased.transformed(
                over: applied.diff, base: state, winner: winner(incoming: stamp, applied: applied.stamp))
            state = try applied.diff.apply(to: state)
        }
        return rebased
    }
}
