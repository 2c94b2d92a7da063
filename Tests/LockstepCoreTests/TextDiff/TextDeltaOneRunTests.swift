import PropertyBased
import Testing
@testable import LockstepCore

/// `TextDelta.make` writes the delta of a one-run edit without the diff engine; it must give
/// the engine's delta to the byte, since both ends of a sync compare them.
@Suite("Text deltas of one-run edits")
struct TextDeltaOneRunTests {
    /// Every text of up to `length` scalars over `alphabet`.
    static func texts(over alphabet: [String], upTo length: Int) -> [String] {
        var texts = [""]
        var last = [""]
        for _ in 0..<length {
            last = last.flatMap { text in alphabet.map { text + $0 } }
            texts += last
        }
        return texts
    }

    static func oneRunDelta(_ old: String, _ new: String) -> String? {
        let (old, new) = (old.scalarValues, new.scalarValues)
        guard old != new else { return nil }
        let prefix = old.commonPrefixLength(with: new)
        return TextDelta.oneRunDelta(
            from: old, to: new, commonPrefix: prefix, commonSuffix: old[prefix...].commonSuffixLength(with: new[prefix...]))
    }

    @Test("every pair of small texts gets the engine's delta", arguments: [
        (["a", "b"], 6),
        // A scalar that UTF-16 counts twice, and one that the delta escapes.
        (["a", "😀", "%"], 4),
    ])
    func everyPairOfSmallTexts(alphabet: [String], length: Int) {
        let texts = Self.texts(over: alphabet, upTo: length)
        var written = 0
        for old in texts {
            for new in texts {
                let delta = TextDelta.make(from: old, to: new)
                if Self.oneRunDelta(old, new) != nil { written += 1 }
                guard delta == TextDelta.diffedDelta(from: old.scalarValues, to: new.scalarValues) else {
                    Issue.record("\(old.debugDescription) → \(new.debugDescription): \(delta.debugDescription), the engine \(TextDelta.diffedDelta(from: old.scalarValues, to: new.scalarValues).debugDescription)")
                    return
                }
            }
        }
        // Most pairs of small texts are not one run apart; enough are that this tests the writer.
        #expect(written > texts.count * 4)
    }

    @Test("edits as people make them get the engine's delta")
    func editsAsPeopleMakeThem() async {
        let edits = Generator { rng in
            let text = RandomJSON.string(using: &rng)
            return (text, RandomJSON.editText(text, using: &rng))
        }
        await propertyCheck(count: 2000, input: edits) { pair in
            #expect(TextDelta.make(from: pair.0, to: pair.1) == TextDelta.diffedDelta(from: pair.0.scalarValues, to: pair.1.scalarValues))
        }
    }

    @Test func typingAndReplacingAreWrittenWithoutTheEngine() {
        #expect(Self.oneRunDelta("item 123", "item 133") == "=6\t-1\t+3\t=1")
        #expect(Self.oneRunDelta("Hello", "Hello, 😀") == "=5\t+, %F0%9F%98%80")
        #expect(Self.oneRunDelta("abcabd", "abd") == nil)
        #expect(TextDelta.make(from: "Hello world", to: "Hello kansas") == "=6\t-5\t+kansas")
    }
}
