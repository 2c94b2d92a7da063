import LockstepCore
import Testing

/// Inputs the fuzzers (Fuzz/, see FUZZING.md) found breaking jsondiff transforms, kept as they
/// were found (minimized).
@Suite("jsondiff: what the fuzzers found")
struct TransformRegressionTests {
    /// fuzz-object-diff: two `dL` deltas of one list, each valid, written in different text forms
    /// (`=6` counts the reference form's "1\n2\n3\n", `=5` simperium-ios's "1\n2\n3"). No single
    /// form fitted both, so the transform refused the incoming one as malformed: the server
    /// rejected a valid change (440) for being concurrent with another client's.
    @Test(arguments: [ConflictWinner.incoming, .applied])
    func listDeltasOfDifferentTextFormsMerge(winner: ConflictWinner) throws {
        let base: JSONObject = ["a": [1, 2, 3]]
        let mine = try ObjectDiff(json: JSONValue(parsing: #"{"a":{"o":"dL","v":"=6\t+4%0A"}}"#))
        let theirs = try ObjectDiff(json: JSONValue(parsing: #"{"a":{"o":"dL","v":"=5\t+5%0A"}}"#))
        let afterMine = try mine.apply(to: base)
        let afterTheirs = try theirs.apply(to: base)
        #expect(afterMine == ["a": [1, 2, 3, 4]])
        #expect(afterTheirs == ["a": [1, 2, 35]])

        let mineLater = try mine.transformed(over: theirs, base: base, winner: winner).apply(to: afterTheirs)
        let theirsLater = try theirs.transformed(over: mine, base: base, winner: winner.flipped).apply(to: afterMine)
        #expect(mineLater == ["a": [1, 2, 35, 4]])
        #expect(theirsLater == mineLater)
    }
}
