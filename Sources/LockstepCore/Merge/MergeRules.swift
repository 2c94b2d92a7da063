/// The rules that make every replica resolve concurrent edits the same way.
///
/// 1. A change made against the current version applies as it is.
/// 2. A change made against an older version is rebased over the changes since, as their
///    records keep them (what each meant: an increment, a list operation, a text edit as
///    rebased), member by member:
///    - edits to different members all land;
///    - increments of a number add up, whatever else changed it meanwhile;
///    - inserts into a list shift over each other, and every one lands once;
///    - concurrent edits of one string merge as text patches where the patches apply;
///    - otherwise (two values for one member) the edit with the later corrected time wins,
///      ties broken by client id; when either edit carries no time, arrival order decides
///      (the later arrival wins, as Simperium's own server does). A replace that wins
///      rebases as a replace, so a later change meets it whole.
/// 3. A removed object is a tombstone: changes to it are refused (`410`), and it never
///    reappears.
/// 4. A change whose client change id was seen before is not applied twice: it is answered
///    `409`.
/// 5. When the version a change was made against is no longer kept, a change that carries the
///    whole object is merged member by member by the member stamps (``mergeMembers``).
///
/// Rules 3 and 4 are the store's to keep (it holds tombstones and seen change ids); rules 2
/// and 5 are here. `MergeRulesLawTests` checks rule 2 on generated concurrent edits.
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
        // Where a run whose one-step merge failed ends: up to there, edit by edit.
        var stepwiseUntil = 0
        while index < applied.count, let current = mine {
            if index >= stepwiseUntil, case .text(let delta) = current, case .string(let text)? = value,
                let run = try textRun(in: applied, from: index, on: text, at: path)
            {
                if case .rebased(let merged) = try TextMerge.rebase(delta, onto: run.text, base: text, at: path) {
                    mine = merged.map(DiffOperation.text)
                    value = .string(run.text)
                    index = run.end
                    continue
                }
                // A patch found no place in where the run ended: find the first edit it
                // collides with (halving the run), carry it up to there, and let the merge
                // rules settle that edit.
                let collision = try firstCollision(delta, from: text, in: applied, index..<run.end, at: path)
                mine = collision.carried.map(DiffOperation.text)
                value = .string(collision.text)
                index = collision.index
                stepwiseUntil = collision.index + 1
                continue
            }
            if current.setsWholeValue, case .string(let text)? = value, let end = textRunEnd(in: applied, from: index) {
                // A whole value meets a run of text edits: each is a collision that the edit
                // stamps settle whole (``DiffOperation/transformed(over:base:winner:at:)``). The
                // value stands, as a replace, if it is later than every edit of the run; else
                // the first edit later than it takes it away.
                guard applied[index..<end].allSatisfy({ winner(incoming: stamp, applied: $0.1) == .incoming }) else { return nil }
                mine = if case .remove = current { .remove } else { .replace(try current.apply(to: value, at: path)!) }
                value = .string(try textRun(in: applied, from: index, to: end, on: text, at: path))
                index = end
                continue
            }
            let (theirs, theirStamp) = applied[index]
            let won = winner(incoming: stamp, applied: theirStamp)
            mine = try current.transformed(over: theirs, base: value, winner: won, at: path)
            value = try theirs.apply(to: value, at: path)
            index += 1
            if mine == nil, won == .incoming, operation.setsWholeValue {
                return try settle(wholeValue: operation.apply(to: base, at: path), stamp: stamp, from: value, over: applied[index...], at: path)
            }
        }
        return mine
    }

    /// A whole-value edit that won over an applied edit which had made it already (the same
    /// removal, the same value), carried over the edits applied after that one. It still meets
    /// each later edit of the member by the merge rules: an earlier one among them must not keep
    /// its value over this later one (PostgreSQL seed 2037).
    ///
    /// Where nothing later took the member elsewhere, the edit stays as what it is, though it
    /// changes no value there (a removal of a member gone already, a set to the value it has):
    /// it is the member's latest write, and an earlier edit of the member that arrives after it
    /// (made offline against an older version) must lose to it when rebased over it, as every
    /// device that takes it in must stamp the member with it (PostgreSQL seed 1006 under load).
    private static func settle(
        wholeValue target: JSONValue?, stamp: EditStamp, from value: JSONValue?, over later: ArraySlice<(DiffOperation, EditStamp)>,
        at path: DiffPath
    ) throws(DiffError) -> DiffOperation? {
        var value = value
        var holds = true
        for (theirs, theirStamp) in later {
            value = try theirs.apply(to: value, at: path)
            // The latest edit wins: one later than this edit keeps its value.
            holds = holds && winner(incoming: stamp, applied: theirStamp) == .incoming
        }
        guard holds else { return nil }
        guard value != target else { return target.map(DiffOperation.replace) ?? .remove }
        switch (value, target) {
        case (_, nil): return .remove
        case (nil, let target?): return .insert(target)
        case (_, let target?): return .replace(target)
        }
    }

    /// The first text edit of `run` that text delta `delta` (made against `text`) cannot be
    /// merged past, found by halving the run, with `delta` carried over every edit before it
    /// and the text those edits left. Assumes the whole run does not merge.
    private static func firstCollision(
        _ delta: String, from text: String, in applied: [(DiffOperation, EditStamp)], _ run: Range<Int>, at path: DiffPath
    ) throws(DiffError) -> (index: Int, carried: String?, text: String) {
        guard run.count > 1 else { return (run.lowerBound, delta, text) }
        let middle = run.lowerBound + run.count / 2
        let firstHalf = try textRun(in: applied, from: run.lowerBound, to: middle, on: text, at: path)
        guard case .rebased(let carried) = try TextMerge.rebase(delta, onto: firstHalf, base: text, at: path) else {
            return try firstCollision(delta, from: text, in: applied, run.lowerBound..<middle, at: path)
        }
        guard let carried else { return (middle, nil, firstHalf) }
        return try firstCollision(carried, from: firstHalf, in: applied, middle..<run.upperBound, at: path)
    }

    /// The text the text edits `start..<end` of `applied` make of `text`.
    private static func textRun(in applied: [(DiffOperation, EditStamp)], from start: Int, to end: Int, on text: String, at path: DiffPath)
        throws(DiffError) -> String
    {
        try apply(applied[start..<end].compactMap { operation, _ in
            if case .text(let delta) = operation { delta } else { nil }
        }, to: text, at: path)
    }

    /// Where a run of more than one text edit starting at `start` leaves `text`, and where the
    /// run ends; `nil` when the operation at `start` is not a text edit or is alone.
    private static func textRun(in applied: [(DiffOperation, EditStamp)], from start: Int, on text: String, at path: DiffPath) throws(DiffError)
        -> (text: String, end: Int)?
    {
        guard let end = textRunEnd(in: applied, from: start) else { return nil }
        return (try textRun(in: applied, from: start, to: end, on: text, at: path), end)
    }

    /// Where a run of more than one text edit starting at `start` ends; `nil` when the
    /// operation at `start` is not a text edit or is alone.
    private static func textRunEnd(in applied: [(DiffOperation, EditStamp)], from start: Int) -> Int? {
        var end = start
        while end < applied.count, case .text = applied[end].0 {
            end += 1
        }
        return end - start > 1 ? end : nil
    }

    private static func apply(_ deltas: [String], to text: String, at path: DiffPath) throws(DiffError) -> String {
        do {
            return try TextDelta.apply(deltas, to: text)
        } catch {
            throw DiffError(.badTextDelta, at: path, "text delta does not apply: \(error)")
        }
    }
}
