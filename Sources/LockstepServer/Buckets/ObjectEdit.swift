import LockstepCore

/// What a modifying change asks for, in the three shapes clients send: a diff (`v`), the whole
/// new object (`d`, or an HTTP `POST ?replace=1`), or some top-level members (an HTTP `POST`).
enum ObjectEdit {
    case diff(ObjectDiff)
    /// The whole object; `named` lists the members the client meant to change, when it said
    /// (a `v` sent beside `d`).
    case whole(JSONObject, named: [String]?)
    case members(JSONObject)

    /// Reads a `c:` change's `v` and `d`.
    ///
    /// node-simperium resends a refused change with `d` set to its *ghost*,
    /// `{"version": N, "data": {…}}`, rather than to the object. A `d` of exactly that shape,
    /// for an object that has neither member, is taken for such a ghost and set aside: the
    /// change is planned from its `v`, so the ghost is never stored as the object's data.
    init(diff: ObjectDiff?, wholeObject: JSONObject?, current: JSONObject?, key: String) throws(ChangeRejection) {
        if let wholeObject, !Self.isGhost(wholeObject, current: current ?? [:]) {
            self = .whole(wholeObject, named: diff.map { Array($0.operations.keys) })
        } else if let diff {
            self = .diff(diff)
        } else {
            throw ChangeRejection(
                .badRequest, "the change to \(key) carries a ghost ({\"version\",\"data\"}) as \"d\" and no diff \"v\": send the object itself as \"d\"")
        }
    }

    private static func isGhost(_ object: JSONObject, current: JSONObject) -> Bool {
        guard object.count == 2, case .integer? = object["version"], case .object? = object["data"] else { return false }
        return current["version"] == nil && current["data"] == nil
    }

    /// The edit as a diff against `base`, the version the client made it against, and the object
    /// it leaves. A client's diff is applied, which also checks that it fits `base`. The whole
    /// object, or `base` with the members merged in, is the result as it stands: applying the
    /// diff made from it would only give it back (the law `applyOfDiffGivesTheTarget` checks).
    func applied(to base: JSONObject) throws(DiffError) -> (diff: ObjectDiff, result: JSONObject) {
        let object: JSONObject
        switch self {
        case .diff(let diff): return (diff, try diff.apply(to: base))
        case .whole(let whole, _): object = whole
        case .members(let members): object = base.merging(members) { _, new in new }
        }
        return (ObjectDiff(from: base, to: object), object)
    }

    /// The edit merged into `current` member by member, for a change whose base is gone, as a
    /// diff from `current`; `nil` when the edit cannot be merged without its base (a diff that
    /// edits inside a member: text, nested objects, lists).
    func mergedWithoutBase(into current: JSONObject, stamp: EditStamp, stamps: [String: EditStamp]) throws(DiffError) -> ObjectDiff? {
        let merged: JSONObject
        switch self {
        case .whole(let object, let named):
            merged = MergeRules.mergeMembers(
                object, named: named ?? MergeRules.changedMembers(object, from: current), into: current, stamp: stamp, stamps: stamps)
        case .members(let members):
            merged = MergeRules.mergeMembers(members, named: members.keys, into: current, stamp: stamp, stamps: stamps)
        case .diff(let diff):
            guard diff.operations.values.allSatisfy(\.needsNoBase) else { return nil }
            let winning = diff.operations.filter { name, _ in
                stamps[name].map { MergeRules.winner(incoming: stamp, applied: $0) == .incoming } ?? true
            }
            return ObjectDiff(winning)
        }
        return ObjectDiff(from: current, to: merged)
    }
}

extension DiffOperation {
    /// Whether the operation means the same whatever the member's value was: a set, a removal
    /// or an increment; not an edit inside the value.
    var needsNoBase: Bool {
        if case .increment = self { return true }
        return setsWholeValue
    }
}
