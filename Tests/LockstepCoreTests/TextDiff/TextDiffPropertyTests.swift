import PropertyBased
import Testing
@testable import LockstepCore

/// Random texts made of pieces that stress a text diff: ASCII words and spaces, line breaks,
/// tabs and `%` (which the delta escapes), CJK, astral emoji and symbols (surrogate pairs in
/// UTF-16), combining marks and ZWJ sequences (several scalars per character).
enum RandomText {
    static let pieces = [
        "a", "b", "c", "the", " ", "  ", "\n", "\r\n", "\t", "%", "%25", "+", "#", "=1", "-",
        "é", "e\u{301}", "中", "文", "字", "😀", "👍🏽", "👨‍👩‍👧", "🏳️‍🌈", "𝄞", "\u{200D}",
    ]

    static let piece = Gen<String?>.element(of: pieces).map { $0! }

    /// A text of up to 24 pieces.
    static let text = piece.array(of: 0 ... 24).map { $0.joined() }

    /// A text of up to 10 pieces.
    static let shortText = piece.array(of: 0 ... 10).map { $0.joined() }

    /// Two texts that share most of their content: `a` is p q r s t, `b` is p q' r s' t.
    static let related = shortText.array(of: 7).map { parts in
        (parts[0] + parts[1] + parts[2] + parts[3] + parts[4], parts[0] + parts[5] + parts[2] + parts[6] + parts[4])
    }
}

@Suite("TextDelta properties")
struct TextDiffPropertyTests {
    @Test func applyingMadeDeltasGivesTheTarget() async {
        await propertyCheck(input: RandomText.text, RandomText.text) { old, new throws in
            #expect(try TextDelta.apply(TextDelta.make(from: old, to: new), to: old).scalars == new.scalars)
        }
        await propertyCheck(input: RandomText.related) { texts throws in
            let (old, new) = texts
            #expect(try TextDelta.apply(TextDelta.make(from: old, to: new), to: old).scalars == new.scalars)
        }
    }

    /// A run of deltas applied in place, with the length carried from one to the next, ends
    /// where the deltas lead; and one that no longer fits (made from an older text) is refused
    /// as when applied alone.
    @Test func aRunOfDeltasGivesItsLastTarget() async {
        await propertyCheck(input: RandomText.text.array(of: 2 ... 6)) { texts throws in
            let deltas = zip(texts, texts.dropFirst()).map { TextDelta.make(from: $0, to: $1) }
            #expect(try TextDelta.apply(deltas, to: texts[0]).scalars == texts.last!.scalars)
            let stale = [deltas[0], deltas[0]]
            let alone = Result { () throws(TextDeltaError) in try TextDelta.apply(deltas[0], to: texts[1]) }
            let inRun = Result { () throws(TextDeltaError) in try TextDelta.apply(stale, to: texts[0]) }
            #expect(inRun.map(\.scalars) == alone.map(\.scalars))
        }
    }

    @Test func deltaCountsAddUpToTheUTF16Length() async {
        await propertyCheck(input: RandomText.related) { texts throws in
            let (old, new) = texts
            let counts = TextDelta.make(from: old, to: new).split(separator: "\t").compactMap { token in
                token.first == "=" || token.first == "-" ? Int(token.dropFirst()) : nil
            }
            #expect(counts.reduce(0, +) == old.utf16.count)
        }
    }

    @Test func deltasRoundTrip() async {
        await propertyCheck(input: RandomText.related) { texts throws in
            let (old, new) = texts
            var diff = TextDiff(from: old, to: new)
            #expect(try TextDiff(delta: diff.delta, source: old) == diff)
            diff.cleanUpSemantically()
            #expect(try TextDiff(delta: diff.delta, source: old) == diff)
        }
    }

    @Test func cleanupsKeepTheTexts() async {
        await propertyCheck(input: RandomText.related) { texts throws in
            let (old, new) = texts
            let diff = TextDiff(from: old, to: new)
            var cleanups = [diff, diff, diff]
            cleanups[0].cleanUpSemantically()
            cleanups[1].cleanUpForEfficiency()
            cleanups[2].alignToWordBoundaries()
            for cleaned in cleanups {
                #expect(cleaned.source.scalars == old.scalars && cleaned.target.scalars == new.scalars)
                #expect(!cleaned.edits.contains { $0.scalars.isEmpty })
            }
        }
    }

    @Test func patchesApplyToTheirOwnSource() async {
        await propertyCheck(input: RandomText.related) { texts throws in
            let (old, new) = texts
            let patches = TextPatch.make(from: old, to: new)
            let result = patches.apply(to: old)
            #expect(result.text.scalars == new.scalars)
            #expect(result.applied.allSatisfy { $0 })
        }
    }

    @Test func concurrentEditsToDisjointRegionsBothLand() async {
        // base = x ⟦y1⟧ m ⟪y2⟫ z; one edit turns y1 into w1, the other y2 into w2. The brackets
        // are not in the random alphabet, so they mark the regions unambiguously, and m ends
        // with a run longer than a hunk's context, so that neither edit rewrites the context
        // the other one is placed by (when it does, the fuzzy patch may drop the edit, as
        // diff-match-patch does).
        await propertyCheck(input: RandomText.shortText.array(of: 7)) { parts throws in
            let (x, y1, w1, y2, w2, z) = (parts[0], parts[1], parts[2], parts[4], parts[5], parts[6])
            let m = parts[3] + "|0123456789 abcdefghijklmnopqrstuvwxyz|"
            func text(_ first: String, _ second: String) -> String { "\(x)⟦\(first)⟧\(m)⟪\(second)⟫\(z)" }
            let base = text(y1, y2)
            let firstEdit = TextDelta.make(from: base, to: text(w1, y2))
            let secondEdit = TextDelta.make(from: base, to: text(y1, w2))

            for (delta, other) in [(firstEdit, secondEdit), (secondEdit, firstEdit)] {
                let otherText = try TextDelta.apply(other, to: base)
                let rebased = try TextDelta.transform(delta, over: other, base: base)
                let merged = try rebased.map { try TextDelta.apply($0, to: otherText) } ?? otherText
                #expect(merged.scalars == text(w1, w2).scalars, "\(merged.debugDescription) should be \(text(w1, w2).debugDescription)")
            }
        }
    }

    @Test func transformAcceptsAnyValidDeltas() async {
        await propertyCheck(input: RandomText.text.array(of: 3)) { texts throws in
            let (base, first, second) = (texts[0], texts[1], texts[2])
            let delta = TextDelta.make(from: base, to: first)
            let other = TextDelta.make(from: base, to: second)
            if let rebased = try TextDelta.transform(delta, over: other, base: base) {
                _ = try TextDelta.apply(rebased, to: second)
            }
        }
    }
}
