/// Which of two concurrent edits keeps its effect where both cannot.
///
/// Transforming diff `a` over diff `b` (both made against the same base, `b` already applied)
/// keeps every part of `a` that does not collide with `b`. Where they collide (the same
/// member replaced twice, a member edited by one and removed by the other, text patches that
/// no longer apply) the winner's value stands. Simperium's server lets the later arrival win
/// (``incoming``); Lockstep's merge rules decide by corrected edit time (see ``MergeRules``).
public enum ConflictWinner: Sendable, Hashable {
    /// The diff being transformed wins.
    case incoming
    /// The diff already applied wins.
    case applied

    /// The same decision seen from the other diff.
    public var flipped: ConflictWinner { self == .incoming ? .applied : .incoming }
}

extension ObjectDiff {
    /// This diff rebased over `applied`, so that it can be applied after it.
    ///
    /// Both diffs were made against `base`. Edits to different members both land; counters
    /// add; nested objects and lists merge member by member and element by element; concurrent
    /// text edits merge as patches where the patches still apply; anything else goes to
    /// `winner`. Whenever `winner` is decided the same way from both sides, the two orders
    /// converge: `apply(transformed(a over b), apply(b, base)) == apply(transformed(b over a), apply(a, base))`.
    public func transformed(over applied: ObjectDiff, base: JSONObject, winner: ConflictWinner) throws(DiffError) -> ObjectDiff {
        try transformed(over: applied, base: base, winner: winner, at: DiffPath())
    }

    func transformed(over applied: ObjectDiff, base: JSONObject, winner: ConflictWinner, at path: DiffPath) throws(DiffError) -> ObjectDiff {
        var result = operations
        for (name, operation) in operations {
            guard let other = applied.operations[name] else { continue }
            result[name] = try operation.transformed(
                over: other, base: base[name], winner: winner, at: path.appending(member: name))
        }
        return ObjectDiff(result)
    }
}

extension DiffOperation {
    /// This operation rebased over `applied`, both made against `base`; `nil` when nothing of
    /// it is left to do.
    func transformed(over applied: DiffOperation, base: JSONValue?, winner: ConflictWinner, at path: DiffPath) throws(DiffError) -> DiffOperation? {
        switch (self, applied, base) {
        case (.increment, .increment, _):
            // Increments commute: both land whatever the order.
            return self
        case (.object(let mine), .object(let theirs), .object(let members)?):
            let rebased = try mine.transformed(over: theirs, base: members, winner: winner, at: path)
            return rebased.isEmpty ? nil : .object(rebased)
        case (.list(let mine), .list(let theirs), .array(let elements)?):
            let rebased = try mine.transformed(over: theirs, base: elements, winner: winner, at: path)
            return rebased.isEmpty ? nil : .list(rebased)
        case (.text(let mine), .text(let theirs), .string(let text)?):
            if case .rebased(let delta) = try TextMerge.rebase(mine, over: theirs, base: text, at: path) {
                return delta.map(DiffOperation.text)
            }
        case (.listText(let mine), .listText(let theirs), .array(let elements)?):
            if case .rebased(let delta) = try ListText.rebase(mine, over: theirs, base: elements, at: path) {
                return delta.map(DiffOperation.listText)
            }
        default:
            break
        }
        return try resolveConflict(with: applied, base: base, winner: winner, at: path)
    }

    /// Where two operations collide, the winner's resulting value stands: as a replace of the
    /// value the applied operation left behind. A replace, not the diff between the two values:
    /// a server keeps the rebased operation as what the change meant, and a later change that
    /// collides with it must meet a replace (which it wins or loses whole by the edit stamps),
    /// never a text edit it would merge into.
    private func resolveConflict(with applied: DiffOperation, base: JSONValue?, winner: ConflictWinner, at path: DiffPath) throws(DiffError) -> DiffOperation? {
        guard winner == .incoming else { return nil }
        let mine = try apply(to: base, at: path)
        let theirs = try applied.apply(to: base, at: path)
        switch (theirs, mine) {
        case (nil, nil): return nil
        case (_?, nil): return .remove
        case (nil, let value?): return .insert(value)
        case (_?, let new?): return .replace(new)
        }
    }
}
