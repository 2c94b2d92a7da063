import GRDB
import LockstepCore

/// How local edits not yet acknowledged survive changes from elsewhere.
///
/// The local object is the ghost plus edits the server has not acknowledged. When a remote
/// change moves the ghost, those edits are rebased over it with jsondiff transform, and where
/// both touched the same member the merge rules decide, exactly as the server will decide when
/// it receives our change: the later edit time wins, else the later arrival (ours).
extension Replica {
    /// `state`, made from `base`, moved onto `newBase` = `base` + `remote`.
    ///
    /// `remoteWins` are the members where a collision goes to the remote change (it wrote them
    /// later than our pending edits did); elsewhere `winner` decides.
    static func rebase(
        _ state: JSONObject, from base: JSONObject, over remote: ObjectDiff, onto newBase: JSONObject, winner: ConflictWinner,
        remoteWins: Set<String> = []
    ) -> JSONObject {
        let pending = ObjectDiff(from: base, to: state)
        guard !pending.isEmpty else { return newBase }
        do {
            let (theirs, rest) = (pending.operations.filter { remoteWins.contains($0.key) }, pending.operations.filter { !remoteWins.contains($0.key) })
            var rebased = try ObjectDiff(rest).transformed(over: remote, base: base, winner: winner)
            let yielding = try ObjectDiff(theirs).transformed(over: remote, base: base, winner: .applied)
            rebased.operations.merge(yielding.operations) { mine, _ in mine }
            return try rebased.apply(to: newBase)
        } catch {
            // The edits no longer fit the new version: keep every member they set, whole.
            return newBase.merging(pending.operations.keys.compactMap { name in state[name].map { (name, $0) } }) { _, mine in mine }
        }
    }

    /// Puts the edits made after `appliedState` (what the local object was when an applied
    /// change was made) on top of the server's version `serverData`.
    static func replay(_ local: JSONObject, after appliedState: JSONObject, onto serverData: JSONObject) -> JSONObject {
        let later = ObjectDiff(from: appliedState, to: local)
        return (try? later.apply(to: serverData)) ?? serverData
    }

    /// The local state that follows from the ghost when nothing is pending.
    static func state(of ghost: Ghost?) -> LocalState {
        guard let ghost else { return .absent }
        return ghost.isDeleted ? .removed : .present(ghost.data)
    }

    /// Sets the local object, returning the event the app should see, if any.
    static func setLocal(
        _ db: Database, _ bucket: String, _ key: String, from old: LocalState, to new: LocalState, origin: BucketEvent.Origin
    ) throws -> BucketEvent? {
        guard old != new else { return nil }
        try LocalRecords.setLocal(db, bucket, key, new)
        return BucketEvent.between(old, new, bucket: bucket, key: key, origin: origin)
    }
}
