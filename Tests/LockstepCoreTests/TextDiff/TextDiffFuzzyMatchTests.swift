import Testing
@testable import LockstepCore

@Suite("TextDiff fuzzy match")
struct TextDiffFuzzyMatchTests {
    private func bitap(_ text: String, _ pattern: String, _ expected: Int, threshold: Double = 0.5, distance: Int = 100) -> Int? {
        FuzzyMatcher(threshold: threshold, distance: distance).bitap(pattern.scalars[...], in: text.scalars, near: expected)
    }

    private func match(_ text: String, _ pattern: String, _ expected: Int, threshold: Double = 0.5, distance: Int = 100) -> Int? {
        FuzzyMatcher(threshold: threshold, distance: distance).location(of: pattern.scalars[...], in: text.scalars, near: expected)
    }

    @Test func alphabet() {
        #expect(FuzzyMatcher.alphabetMasks(of: "abc".scalars) == ["a".scalars[0]: 4, "b".scalars[0]: 2, "c".scalars[0]: 1])
        #expect(FuzzyMatcher.alphabetMasks(of: "abcaba".scalars) == ["a".scalars[0]: 37, "b".scalars[0]: 18, "c".scalars[0]: 8])
    }

    @Test func exactMatches() {
        #expect(bitap("abcdefghijk", "fgh", 5) == 5)
        #expect(bitap("abcdefghijk", "fgh", 0) == 5)
    }

    @Test func fuzzyMatches() {
        #expect(bitap("abcdefghijk", "efxhi", 0) == 4)
        #expect(bitap("abcdefghijk", "cdefxyhijk", 5) == 2)
        #expect(bitap("abcdefghijk", "bxy", 1) == nil)
        #expect(bitap("123456789xx0", "3456789x0", 2) == 2)
        #expect(bitap("abcdef", "xxabc", 4) == 0)
        #expect(bitap("abcdef", "defyy", 4) == 3)
        #expect(bitap("abcdef", "xabcdefy", 0) == 0)
    }

    @Test func threshold() {
        #expect(bitap("abcdefghijk", "efxyhi", 1, threshold: 0.4) == 4)
        #expect(bitap("abcdefghijk", "efxyhi", 1, threshold: 0.3) == nil)
        #expect(bitap("abcdefghijk", "bcdef", 1, threshold: 0) == 1)
    }

    @Test func nearestOfSeveral() {
        #expect(bitap("abcdexyzabcde", "abccde", 3) == 0)
        #expect(bitap("abcdexyzabcde", "abccde", 5) == 8)
    }

    @Test func distance() {
        // Strict: the match must be close.
        #expect(bitap("abcdefghijklmnopqrstuvwxyz", "abcdefg", 24, distance: 10) == nil)
        #expect(bitap("abcdefghijklmnopqrstuvwxyz", "abcdxxefg", 1, distance: 10) == 0)
        // Loose: any match will do.
        #expect(bitap("abcdefghijklmnopqrstuvwxyz", "abcdefg", 24, distance: 1000) == 0)
    }

    @Test func location() {
        #expect(match("abcdef", "abcdef", 1000) == 0)
        #expect(match("", "abcdef", 1) == nil)
        #expect(match("abcdef", "", 3) == 3)
        #expect(match("abcdef", "de", 3) == 3)
        #expect(match("abcdef", "defy", 4) == 3)
        #expect(match("abcdef", "abcdefy", 0) == 0)
        #expect(match("I am the very model of a modern major general.", " that berry ", 5, threshold: 0.7) == 4)
        // Astral scalars count one each.
        #expect(match("😀😀abc😀", "abd", 2) == 2)
    }
}
