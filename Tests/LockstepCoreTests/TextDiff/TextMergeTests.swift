import PropertyBased
import Testing
import LockstepCore

/// `TextDelta.merge`: carrying one edit of a text over to a text that concurrent edits made of
/// the same base, as peers do with text members (merge rule 2).
@Suite("TextDelta merge")
struct TextMergeTests {
    /// Words that never occur inside one another, so a merged text shows each insert once or not at all.
    static let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]

    @Test("merged into the text it was made from, an edit gives exactly what it made")
    func mergingIntoTheBaseGivesTheEdit() async {
        await propertyCheck(input: RandomText.related) { texts in
            let (base, edited) = texts
            #expect(TextDelta.merge(from: base, to: edited, into: base)?.scalars == edited.scalars)
        }
    }

    /// An insert alone would land again beside itself: the replica keeps such an edit from
    /// being merged twice by its ccid (`AppliedChanges`).
    @Test("an edit that deletes, merged into the text it already made, does not land a second time")
    func aDeletingEditDoesNotLandTwice() async {
        await propertyCheck(input: RandomText.related) { texts in
            let (base, edited) = texts
            let deletes = TextDelta.make(from: base, to: edited).split(separator: "\t").contains { $0.first == "-" }
            guard deletes, let again = TextDelta.merge(from: base, to: edited, into: edited) else { return }
            #expect(again.scalars == edited.scalars, "\(base.debugDescription) → \(edited.debugDescription) twice: \(again.debugDescription)")
        }
    }

    /// Found by the property above: where text repeats, the deleted "é" seemed intact in the
    /// one the first merge left.
    @Test("a deletion in repeated text does not land a second time")
    func aDeletionInRepeatedTextDoesNotLandTwice() {
        let (base, edited) = ("éé👨‍👩‍👧", "é👨‍👩‍👧")
        let again = TextDelta.merge(from: base, to: edited, into: edited)
        #expect(again == nil || again?.scalars == edited.scalars, "\(again.debugDescription)")
        #expect(TextDelta.merge(from: base, to: edited, into: base)?.scalars == edited.scalars)
        #expect(TextDelta.merge(from: "ab éé cd", to: "ab é cd", into: "ab éé cd!")?.scalars == "ab é cd!".scalars)
    }

    @Test("two inserts at different places of one text both land, once each, in either order")
    func insertsAtDifferentPlacesBothLand() async {
        let places = Gen.int(in: 0...Self.words.count)
        await propertyCheck(input: places, places) { first, second in
            // Inserts within a context's length of each other overlap, and are a conflict.
            guard abs(first - second) >= 2 else { return }
            let base = Self.words.joined(separator: " ")
            let mine = Self.inserting("[mine]", at: first)
            let theirs = Self.inserting("[theirs]", at: second)
            for (edit, onto) in [(mine, theirs), (theirs, mine)] {
                let merged = try #require(TextDelta.merge(from: base, to: edit, into: onto))
                #expect(merged.components(separatedBy: "[mine]").count == 2, "\(merged)")
                #expect(merged.components(separatedBy: "[theirs]").count == 2, "\(merged)")
                #expect(merged.replacingOccurrences(of: "[mine] ", with: "").replacingOccurrences(of: "[theirs] ", with: "")
                    .replacingOccurrences(of: " [mine]", with: "").replacingOccurrences(of: " [theirs]", with: "") == base)
            }
        }
    }

    @Test("two rewrites of the same words conflict instead of mixing their letters")
    func overlappingRewritesConflict() {
        #expect(TextDelta.merge(from: "listed", to: "packed", into: "loaded") == nil)
        #expect(TextDelta.merge(from: "the red box", to: "the blue box", into: "the green box") == nil)
        // What diff-match-patch's fuzzy placement makes of the first: neither rewrite.
        #expect(TextPatch.make(from: "listed", to: "loaded").apply(to: "packed").text == "oaded")
    }

    @Test("concurrent inserts into an empty text both land")
    func insertsIntoAnEmptyText() {
        #expect(TextDelta.merge(from: "", to: "[t27]", into: "[t15]").map { $0.contains("[t15]") && $0.contains("[t27]") } == true)
    }

    static func inserting(_ token: String, at index: Int) -> String {
        var words = Self.words
        words.insert(token, at: index)
        return words.joined(separator: " ")
    }
}
