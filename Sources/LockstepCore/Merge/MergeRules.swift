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
    ///
    /// The same as transforming `diff` over each change in turn (``ObjectDiff/transformed(over:base:winner:)``),
    /// done member by member, since a transform never mixes members: each member of `diff` is
    /// carried over only the changes that touched that member, through that member's own
    /// values. A run of text edits of one string is followed exactly and `diff`'s text edit
    /// is merged into where the run left the text once, not once per edit (the patch is
    /// fuzzy either way), so a change made offline against a version a thousand edits old
    /// costs one merge, not a thousand.
    public static func rebase(
        _ diff: ObjectDiff, stamp: EditStamp, base: JSONObject, over history: some Sequence<(diff: ObjectDiff, stamp: EditStamp)>
    ) throws(DiffError) -> ObjectDiff {
        let history = Array(history)
        var rebased: [String: DiffOperation] = [:]
        for (name, operation) in diff.operations {
            let touching = history.compactMap { applied in applied.diff.operations[name].map { ($0, applied.stamp) } }
            if let operation = try rebase(operation, stamp: stamp, base: base[name], over: touching, at: DiffPath().appending(member: name)) {
                rebased[name] = operation
            }
        }
        return ObjectDiff(rebased)
    }

    /// One member's operation carried over the operations applied to that member since.
    private static func rebase(
        _ operation: DiffOperation, stamp: EditStamp, base: JSONValue?, over applied: [(DiffOperation, EditStamp)], at path: DiffPath
    ) throws(DiffError) -> DiffOperation? {
        var mine: DiffOperation? = operation
        var value = base
        var index = 0
        while index < applied.count, let current = mine {
            if case .text(let delta) = current, case .string(let text)? = value, let run = try textRun(in: applied, from: index, on: text, at: path),
                case .rebased(let merged) = try TextMerge.rebase(delta, onto: run.text, base: text, at: path)
            {
                mine = merged.map(DiffOperation.text)
                value = .string(run.text)
                index = run.end
                continue
            }
            let (theirs, theirStamp) = applied[index]
            mine = try current.transformed(over: theirs, base: value, winner: winner(incoming: stamp, applied: theirStamp), at: path)
            value = try theirs.apply(to: value, at: path)
            index += 1
        }
        return mine
    }

    /// Where a run of more than one text edit starting at `start` leaves `text`, and where the
    /// run ends; `nil` when the operation at `start` is not a text edit or is alone.
    private static func textRun(in applied: [(DiffOperation, EditStamp)], from start: Int, on text: String, at path: DiffPath) throws(DiffError)
        -> (text: String, end: Int)?
    {
        var end = start
        var result = text
        while end < applied.count, case .text(let delta) = applied[end].0 {
            do {
                result = try TextDelta.apply(delta, to: result)
            } catch {
                throw DiffError(.badTextDelta, at: path, "text delta does not apply: \(error)")
            }
            end += 1
        }
        return end - start > 1 ? (result, end) : nil
    }
}
