import LockstepCore
import Testing

/// PostgreSQL seed 2037 with peer text (found 2026-11-27, fails on SQLite alike, since the
/// server's rebase is shared): a device offline removed a member (53 ms) that the server had
/// removed too (6 ms) and then set again (42 ms). Rebased over the first removal, the incoming
/// one became no edit at all, so it was never weighed against the later set, which stayed,
/// though the removal is the latest edit. (The law tests make every edit against one base, where
/// a member cannot be removed and then set again.) Such an edit now still meets every later
/// edit of its member by the merge rules.
@Suite("Merge rules: an edit the history already made still counts against later edits")
struct RebaseAfterTheSameEditTests {
    @Test("a removal rebased over the same removal and then a set it is later than removes the member")
    func removalOverRemovalThenEarlierSet() throws {
        let base: JSONObject = ["tags": [1], "n": 1]
        let history: [(diff: ObjectDiff, stamp: EditStamp)] = [
            (try ObjectDiff(json: ["tags": ["o": "-"]]), EditStamp(time: 6, clientID: "a")),
            (try ObjectDiff(json: ["tags": ["o": "+", "v": [45]]]), EditStamp(time: 42, clientID: "b")),
        ]
        var current = base
        for (diff, _) in history { current = try diff.apply(to: current) }
        let removal = try ObjectDiff(json: ["tags": ["o": "-"]])
        let rebased = try MergeRules.rebase(removal, stamp: EditStamp(time: 53, clientID: "c"), base: base, over: history)
        #expect(try rebased.apply(to: current) == ["n": 1])
        // A set later than the incoming removal keeps its value.
        let later: [(diff: ObjectDiff, stamp: EditStamp)] = [history[0], (history[1].diff, EditStamp(time: 60, clientID: "b"))]
        #expect(try MergeRules.rebase(removal, stamp: EditStamp(time: 53, clientID: "c"), base: base, over: later).apply(to: current)
            == ["tags": [45], "n": 1])
    }

    /// PostgreSQL seed 1006 under load: the removal that arrives second, later than the first,
    /// is the member's latest write, though it changes nothing there; an edit stamped between
    /// the two, made against the version before both and arriving after them, loses to it.
    @Test("a removal rebased over an earlier removal stays a removal, and a set stamped between them arriving last loses")
    func removalOverRemovalThenALateSetStampedBetween() throws {
        let base: JSONObject = ["tags": [41], "n": 1]
        let first = (diff: try ObjectDiff(json: ["tags": ["o": "-"]]), stamp: EditStamp(time: 41, clientID: "a"))
        let removal = try ObjectDiff(json: ["tags": ["o": "-"], "n": ["o": "r", "v": 47]])
        let stamp = EditStamp(time: 46, clientID: "c")
        let rebased = try MergeRules.rebase(removal, stamp: stamp, base: base, over: [first])
        #expect(rebased.operations["tags"] == .remove, "\(rebased)")
        #expect(try rebased.apply(to: first.diff.apply(to: base)) == ["n": 47])

        let set = try ObjectDiff(json: ["tags": ["o": "r", "v": [43]]])
        let late = try MergeRules.rebase(set, stamp: EditStamp(time: 43, clientID: "b"), base: base, over: [first, (rebased, stamp)])
        #expect(late.isEmpty, "\(late)")
    }
}
