import Testing
import LockstepCore

/// Known deltas and rebases from Simperium's reference implementations and clients.
@Suite("TextDelta Simperium vectors")
struct TextDiffSimperiumTests {
    @Test(arguments: [
        ("Hello world", "Hello kansas", "=6\t-5\t+kansas"),
        ("b", "c", "-1\t+c"),
        ("a😀b", "a😀bc", "=4\t+c"),
        ("a", "aé b\n%#", "=1\t+%C3%A9 b%0A%25#"),
        // jsondiff's list_diff_dmp: [1,2,3] → [1,2,3,4] as newline-separated JSON.
        ("1\n2\n3\n", "1\n2\n3\n4\n", "=6\t+4%0A"),
        ("", "", ""),
        ("same", "same", "=4"),
    ])
    func knownDeltas(old: String, new: String, delta: String) throws {
        #expect(TextDelta.make(from: old, to: new) == delta)
        #expect(try TextDelta.apply(delta, to: old) == new)
    }

    @Test func roundTrips() throws {
        let old = "this is some text"
        let new = "this is another text"
        #expect(try TextDelta.apply(TextDelta.make(from: old, to: new), to: old) == new)
        #expect(try TextDelta.apply(TextDelta.make(from: new, to: old), to: new) == old)
    }

    @Test func lengthMismatchMessage() {
        #expect(throws: TextDeltaError(.lengthMismatch(deltaLength: 5, sourceLength: 2))) {
            try TextDelta.apply("=5", to: "ab")
        }
    }

    @Test func crossedWires() throws {
        // node-simperium's crossed_wires_test: X and Y both edit "AC"; the server accepts Y's
        // "=1\t+B\t=1" first, rebases X's "=2\t+D" to "=3\t+D", and both sides reach "ABCD".
        let rebased = try TextDelta.transform("=2\t+D", over: "=1\t+B\t=1", base: "AC")
        #expect(rebased == "=3\t+D")
        #expect(try TextDelta.apply(#require(rebased), to: "ABC") == "ABCD")
    }

    @Test func transformOfTheSameEditIsNothing() throws {
        let edit = TextDelta.make(from: "Hello world", to: "Hello kansas")
        #expect(try TextDelta.transform(edit, over: edit, base: "Hello world") == nil)
    }

    @Test func transformKeepsBothEditsToOneSentence() throws {
        let base = "The quick brown fox jumps over the lazy dog."
        let mine = TextDelta.make(from: base, to: "The quick red fox jumps over the lazy dog.")
        let theirs = TextDelta.make(from: base, to: "The quick brown fox jumps over the sleepy dog!")
        let rebased = try #require(try TextDelta.transform(mine, over: theirs, base: base))
        #expect(try TextDelta.apply(rebased, to: TextDelta.apply(theirs, to: base))
            == "The quick red fox jumps over the sleepy dog!")
    }

    @Test func transformPlacesEditsAfterTextTheOtherEditInserted() throws {
        // The other edit inserts "c+\u{200D}ab" inside this hunk's context; the hunk's own
        // insertion must still land between ⟪ and ⟫, not before them.
        let base = "the\u{200D}⟦⟧⟪⟫"
        let mine = TextDelta.make(from: base, to: "the\u{200D}⟦⟧⟪中⟫")
        let theirs = TextDelta.make(from: base, to: "the\u{200D}⟦c+\u{200D}ab⟧⟪⟫")
        let rebased = try #require(try TextDelta.transform(mine, over: theirs, base: base))
        #expect(try TextDelta.apply(rebased, to: TextDelta.apply(theirs, to: base)) == "the\u{200D}⟦c+\u{200D}ab⟧⟪中⟫")
    }

    @Test func transformRejectsMalformedDeltas() {
        #expect(throws: TextDeltaError(.lengthMismatch(deltaLength: 3, sourceLength: 2))) {
            try TextDelta.transform("=3", over: "=2", base: "AC")
        }
        #expect(throws: TextDeltaError(.unknownOperation(token: "?"))) {
            try TextDelta.transform("=2", over: "?", base: "AC")
        }
    }

    @Test func documentedPatchExample() {
        let patch = TextPatch.make(from: "The quick brown fox.", to: "The quick red fox.")
        #expect(patch.apply(to: "Look: the quick brown fox!") == ("Look: the quick red fox!", [true]))
    }

    @Test func documentedDiffExample() {
        let diff = TextDiff(from: "Hello world", to: "Hello kansas")
        #expect(diff.edits == [.equal("Hello "), .delete("world"), .insert("kansas")])
        #expect(diff.edits.map(\.description) == [#"="Hello ""#, #"-"world""#, #"+"kansas""#])
    }
}
