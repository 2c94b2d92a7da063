import Testing
@testable import LockstepCore

@Suite("TextDiff engine")
struct TextDiffEngineTests {
    @Test func commonPrefixAndSuffix() {
        #expect("abc".scalars.commonPrefixLength(with: "xyz".scalars) == 0)
        #expect("1234abcdef".scalars.commonPrefixLength(with: "1234xyz".scalars) == 4)
        #expect("1234".scalars.commonPrefixLength(with: "1234xyz".scalars) == 4)
        #expect("abc".scalars.commonSuffixLength(with: "xyz".scalars) == 0)
        #expect("abcdef1234".scalars.commonSuffixLength(with: "xyz1234".scalars) == 4)
        #expect("1234".scalars.commonSuffixLength(with: "xyz1234".scalars) == 4)
    }

    @Test func overlap() {
        #expect("".scalars.overlapLength(withStartOf: "abcd".scalars) == 0)
        #expect("abc".scalars.overlapLength(withStartOf: "abcd".scalars) == 3)
        #expect("123456".scalars.overlapLength(withStartOf: "abcd".scalars) == 0)
        #expect("123456xxx".scalars.overlapLength(withStartOf: "xxxabcd".scalars) == 3)
        #expect("abcabcab".scalars.overlapLength(withStartOf: "abcabx".scalars) == 5)
        #expect("xab".scalars.overlapLength(withStartOf: "ab".scalars) == 2)
        // A ligature is not the letters it looks like.
        #expect("fi".scalars.overlapLength(withStartOf: "\u{FB01}i".scalars) == 0)
    }

    @Test func patternSearch() {
        #expect("aaab".scalars.firstOccurrence(of: "aab".scalars) == 1)
        #expect("aabaab".scalars.firstOccurrence(of: "aab".scalars, from: 1) == 3)
        #expect("aaaa".scalars.firstOccurrence(of: "aab".scalars) == nil)
        #expect("ab".scalars.firstOccurrence(of: [], from: 2) == 2)
        #expect("ab".scalars.firstOccurrence(of: [], from: 3) == nil)
        #expect("abcabc".scalars.firstOccurrence(of: "bc".scalars, in: 2 ..< 6) == 4)
        #expect("abcabc".scalars.firstOccurrence(of: "bc".scalars, in: 2 ..< 5) == nil)
        #expect("abcabc".scalars.lastOccurrence(of: "bc".scalars, in: 0 ..< 5) == 1)
        #expect("abcabc".scalars.lastOccurrence(of: "bc".scalars, in: 0 ..< 6) == 4)
        #expect("abcabc".scalars.lastOccurrence(of: "x".scalars, in: 0 ..< 6) == nil)
        #expect("aaaa".scalars.occurrences(of: "aa".scalars) == [0, 1, 2])
    }

    @Test func repetitiveSearchStaysCorrectPastTheScanBudget() {
        // Every position matches all but the last scalar, so the plain scan gives up early
        // and Knuth–Morris–Pratt finishes the search.
        let pattern = [UInt32](repeating: 1, count: 500) + [2]
        let text = [UInt32](repeating: 1, count: 20_000) + [2] + [UInt32](repeating: 1, count: 100)
        #expect(text.firstOccurrence(of: pattern) == 20_000 - 500)
        #expect(text.firstOccurrence(of: pattern, in: 0 ..< 20_000) == nil)
        #expect(ScalarPatternSearch(pattern).firstIndex(in: text, within: 0 ..< text.count) == 20_000 - 500)
    }

    @Test(arguments: [
        // (old, new, expected [oldPrefix, oldSuffix, newPrefix, newSuffix, common]), nil for no match
        ("1234567890", "abcdef", nil),
        ("12345", "23", nil),
        ("1234567890", "a345678z", ["12", "90", "a", "z", "345678"]),
        ("a345678z", "1234567890", ["a", "z", "12", "90", "345678"]),
        ("abc56789z", "1234567890", ["abc", "z", "1234", "0", "56789"]),
        ("a23456xyz", "1234567890", ["a", "xyz", "1", "7890", "23456"]),
        ("121231234123451234123121", "a1234123451234z", ["12123", "123121", "a", "z", "1234123451234"]),
        ("x-=-=-=-=-=-=-=-=-=-=-=-=", "xx-=-=-=-=-=-=-=", ["", "-=-=-=-=-=", "x", "", "x-=-=-=-=-=-=-="]),
        ("-=-=-=-=-=-=-=-=-=-=-=-=y", "-=-=-=-=-=-=-=yy", ["-=-=-=-=-=", "", "", "y", "-=-=-=-=-=-=-=y"]),
        // Not the optimal diff, which would keep "HelloHe" and "llo"; the speed is worth it.
        ("qHilloHelloHew", "xHelloHeHulloy", ["qHillo", "w", "x", "Hulloy", "HelloHe"]),
    ] as [(String, String, [String]?)])
    func halfMatch(old: String, new: String, expected: [String]?) {
        let match = TextDiffEngine(timeout: .seconds(1)).halfMatch(old.scalars, new.scalars)
        let pieces = match.map { [$0.oldPrefix, $0.oldSuffix, $0.newPrefix, $0.newSuffix, $0.common].map { String(scalarValues: $0) } }
        #expect(pieces == expected)
    }

    @Test func halfMatchNeedsADeadline() {
        #expect(TextDiffEngine(timeout: nil).halfMatch("qHilloHelloHew".scalars, "xHelloHeHulloy".scalars) == nil)
    }

    @Test func bisect() {
        // With no deadline, the shortest diff; with one in the past, a wholesale replacement.
        #expect(TextDiffEngine(timeout: nil).bisect("cat".scalars, "map".scalars)
            == [.delete("c"), .insert("m"), .equal("a"), .delete("t"), .insert("p")])
        #expect(TextDiffEngine(timeout: .zero).bisect("cat".scalars, "map".scalars)
            == [.delete("cat"), .insert("map")])
    }

    @Test func trivialDiffs() {
        #expect(engineDiff("", "") == [])
        #expect(engineDiff("abc", "abc") == [.equal("abc")])
        #expect(engineDiff("abc", "ab123c") == [.equal("ab"), .insert("123"), .equal("c")])
        #expect(engineDiff("a123bc", "abc") == [.equal("a"), .delete("123"), .equal("bc")])
        #expect(engineDiff("abc", "a123b456c") == [.equal("a"), .insert("123"), .equal("b"), .insert("456"), .equal("c")])
        #expect(engineDiff("a123b456c", "abc") == [.equal("a"), .delete("123"), .equal("b"), .delete("456"), .equal("c")])
    }

    @Test func realDiffs() {
        #expect(engineDiff("a", "b") == [.delete("a"), .insert("b")])
        #expect(engineDiff("Apples are a fruit.", "Bananas are also fruit.")
            == [.delete("Apple"), .insert("Banana"), .equal("s are a"), .insert("lso"), .equal(" fruit.")])
        #expect(engineDiff("ax\t", "\u{0680}x\u{0}")
            == [.delete("a"), .insert("\u{0680}"), .equal("x"), .delete("\t"), .insert("\u{0}")])
        #expect(engineDiff("1ayb2", "abxab") == [.delete("1"), .equal("a"), .delete("y"), .equal("b"), .delete("2"), .insert("xab")])
        #expect(engineDiff("abcy", "xaxcxabc") == [.insert("xaxcx"), .equal("abc"), .delete("y")])
        #expect(engineDiff("ABCDa=bcd=efghijklmnopqrsEFGHIJKLMNOefg", "a-bcd-efghijklmnopqrs")
            == [.delete("ABCD"), .equal("a"), .delete("="), .insert("-"), .equal("bcd"), .delete("="), .insert("-"),
                .equal("efghijklmnopqrs"), .delete("EFGHIJKLMNOefg")])
        #expect(engineDiff("a [[Pennsylvania]] and [[New", " and [[Pennsylvania]]")
            == [.insert(" "), .equal("a"), .insert("nd"), .equal(" [[Pennsylvania]]"), .delete(" and [[New")])
    }

    @Test func astralScalarsAreNeverSplit() {
        // U+1F600 and U+1F601 share their high surrogate; a UTF-16 diff would keep it.
        #expect(engineDiff("a😀", "a😁") == [.equal("a"), .delete("😀"), .insert("😁")])
    }

    @Test func timeoutGivesUpButStaysValid() {
        // Two long texts with many differences cannot be diffed optimally in no time.
        let old = String(repeating: "`Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\n", count: 16)
        let new = String(repeating: "I am the very model of a modern major general,\nI've information vegetable, animal,\n", count: 16)
        let hurried = TextDiff(from: old, to: new, timeout: .zero)
        #expect(hurried.source == old && hurried.target == new)
        let patient = TextDiff(from: old, to: new, timeout: nil)
        #expect(patient.source == old && patient.target == new)
        #expect(hurried.levenshteinDistance >= patient.levenshteinDistance)
    }

    @Test func lineModeGivesTheSameTexts() {
        let digits = String(repeating: "1234567890\n", count: 13)
        let letters = String(repeating: "abcdefghij\n", count: 13)
        // Texts without shared lines come out exactly as the scalar diff.
        #expect(engineDiff(digits, letters, lineMode: true) == engineDiff(digits, letters))
        let singleLine = String(repeating: "1234567890", count: 13)
        #expect(engineDiff(singleLine, String(repeating: "abcdefghij", count: 13), lineMode: true)
            == engineDiff(singleLine, String(repeating: "abcdefghij", count: 13)))
        // Otherwise the diff may differ, but it spells the same texts.
        let old = "1234567890\n1234567890\n1234567890\nabcdefghij\n1234567890\n1234567890\n1234567890\nabcdefghij\n"
        let new = "abcdefghij\n1234567890\n1234567890\n1234567890\nabcdefghij\n1234567890\n1234567890\n1234567890\n"
        let edits = engineDiff(old, new, lineMode: true)
        #expect(edits.sourceScalars == old.scalars && edits.targetScalars == new.scalars)
    }

    @Test func lineModeRefinesChangedLines() {
        let old = (1 ... 40).map { "line \($0) of the poem\n" }.joined()
        let new = (1 ... 40).map { $0 == 17 ? "line seventeen of the poem\n" : "line \($0) of the poem\n" }.joined()
        // No timeout, so no half match to take the shortcut before line mode.
        let edits = engineDiff(old, new, lineMode: true)
        #expect(edits.filter { $0.operation != .equal } == [.delete("17"), .insert("seventeen")])
    }

    @Test func levenshtein() {
        #expect(TextDiff([.delete("abc"), .insert("1234"), .equal("xyz")]).levenshteinDistance == 4)
        #expect(TextDiff([.equal("xyz"), .delete("abc"), .insert("1234")]).levenshteinDistance == 4)
        #expect(TextDiff([.delete("abc"), .equal("xyz"), .insert("1234")]).levenshteinDistance == 7)
    }

    @Test func targetIndex() {
        #expect([.delete("a"), .insert("1234"), .equal("xyz")].targetIndex(forSourceIndex: 2) == 5)
        #expect([.equal("a"), .delete("1234"), .equal("xyz")].targetIndex(forSourceIndex: 3) == 1)
    }

    @Test func sourceAndTarget() {
        let diff = TextDiff([.equal("jump"), .delete("s"), .insert("ed"), .equal(" over "), .delete("the"), .insert("a"), .equal(" lazy")])
        #expect(diff.source == "jumps over the lazy")
        #expect(diff.target == "jumped over a lazy")
    }
}
