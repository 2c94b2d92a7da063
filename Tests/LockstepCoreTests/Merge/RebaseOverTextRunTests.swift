import LockstepCore
import PropertyBased
import Testing

/// ``MergeRules/rebase(_:stamp:base:over:)`` takes runs of text edits in one step; whatever
/// it meets them with, the result must be what transforming over each edit in turn gives
/// (``ObjectDiff/transformed(over:base:winner:)``), the rule the shortcut stands for.
@Suite("Merge rules: a rebase over a run of text edits is the edit-by-edit rebase")
struct RebaseOverTextRunTests {
    /// A history of text edits of `text`, each by its own device at its own time, and an
    /// edit of the same member made against the first version.
    struct Case: Sendable, CustomStringConvertible {
        var history: [(diff: ObjectDiff, stamp: EditStamp)]
        var edit: ObjectDiff
        var stamp: EditStamp
        var description: String {
            "\(edit.json) @\(stamp.time ?? -1) over \(history.map { "\($0.diff.json)@\($0.stamp.time ?? -1)" })"
        }
    }

    static let base: JSONObject = ["text": "the quick brown fox jumps over the lazy dog", "n": 1]
    static let words = ["red", "slow", "cat", "sleeps", "under", "a", "tree"]

    static func cases(editing make: @escaping @Sendable (inout any SeededRandomNumberGenerator) -> DiffOperation)
        -> Generator<Case, Shrink.None<Case>>
    {
        Generator { rng in
            var text = "the quick brown fox jumps over the lazy dog"
            var history: [(diff: ObjectDiff, stamp: EditStamp)] = []
            for device in 0..<Int.random(in: 2...12, using: &rng) {
                var words = text.split(separator: " ").map(String.init)
                words[Int.random(in: 0..<words.count, using: &rng)] = Self.words.randomElement(using: &rng)!
                let edited = words.joined(separator: " ")
                let stamp = EditStamp(time: Int64.random(in: 1...8, using: &rng), clientID: "device-\(device)")
                history.append((ObjectDiff(["text": .text(TextDelta.make(from: text, to: edited))]), stamp))
                text = edited
            }
            return Case(history: history, edit: ObjectDiff(["text": make(&rng)]), stamp: EditStamp(time: Int64.random(in: 1...9, using: &rng), clientID: "offline"))
        }
    }

    /// The edit transformed over each change of the history in turn.
    static func stepwise(_ testCase: Case) throws -> ObjectDiff {
        var edit = testCase.edit
        var value = base
        for (applied, stamp) in testCase.history where !edit.isEmpty {
            edit = try edit.transformed(over: applied, base: value, winner: MergeRules.winner(incoming: testCase.stamp, applied: stamp))
            value = try applied.apply(to: value)
        }
        return edit
    }

    @Test("a whole value (set or removed) over text edits: it stands only if it is later than each")
    func wholeValue() async {
        await propertyCheck(count: 300, input: Self.cases { rng in
            Bool.random(using: &rng) ? .replace("rewritten") : .remove
        }) { testCase throws in
            let rebased = try MergeRules.rebase(testCase.edit, stamp: testCase.stamp, base: Self.base, over: testCase.history)
            #expect(rebased == (try Self.stepwise(testCase)), "\(testCase)")
        }
    }
}
