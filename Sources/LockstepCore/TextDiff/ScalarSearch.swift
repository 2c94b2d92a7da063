// Comparing and searching runs of scalar values: the primitive operations under the diff,
// the cleanups and the patches.

extension Collection<UInt32> {
    /// How many scalars this collection and `other` share at their start.
    func commonPrefixLength(with other: some Collection<UInt32>) -> Int {
        var length = 0
        for (mine, theirs) in zip(self, other) {
            if mine != theirs { break }
            length += 1
        }
        return length
    }
}

extension BidirectionalCollection<UInt32> {
    /// How many scalars this collection and `other` share at their end.
    func commonSuffixLength(with other: some BidirectionalCollection<UInt32>) -> Int {
        reversed().commonPrefixLength(with: other.reversed())
    }

    /// Whether the collection ends with `suffix`.
    func hasSuffix(_ suffix: some BidirectionalCollection<UInt32>) -> Bool {
        count >= suffix.count && reversed().starts(with: suffix.reversed())
    }
}

extension [UInt32] {
    /// How far the end of this text overlaps the start of `other`: the length of the longest
    /// suffix of `self` that is also a prefix of `other`. `"abcxxx"` and `"xxxdef"` overlap by 3.
    func overlapLength(withStartOf other: [UInt32]) -> Int {
        let possible = Swift.min(count, other.count)
        guard possible > 0 else { return 0 }
        return ScalarPatternSearch(Array(other[..<possible])).longestPrefix(endingWith: self[(count - possible)...])
    }

    /// The index of the last occurrence of `pattern` that starts at or before `bound`.
    ///
    /// A plain backwards scan: it only ever looks for fuzzy-match patterns, which are at most
    /// 32 scalars long, so its worst case stays linear in practice.
    func lastIndex(of pattern: some Collection<UInt32>, startingAtOrBefore bound: Int) -> Int? {
        var start = Swift.min(bound, count - pattern.count)
        while start >= 0 {
            if self[start ..< start + pattern.count].elementsEqual(pattern) {
                return start
            }
            start -= 1
        }
        return nil
    }
}

/// Searches texts for one pattern in time linear in the text and the pattern
/// (Knuth, Morris and Pratt, 1977).
///
/// The diff looks for texts of up to megabytes inside others. A naive search is quadratic on
/// repetitive input such as `"aaaa…ab"`, which would be an easy way to stall a server.
struct ScalarPatternSearch {
    let pattern: [UInt32]

    /// `fallback[i]` is the length of the longest proper prefix of `pattern[...i]` that is
    /// also a suffix of it: how much of the pattern is still matched after a mismatch at `i + 1`.
    private let fallback: [Int]

    init(_ pattern: [UInt32]) {
        self.pattern = pattern
        var fallback = [Int](repeating: 0, count: pattern.count)
        var matched = 0
        for index in pattern.indices.dropFirst() {
            while matched > 0 && pattern[index] != pattern[matched] {
                matched = fallback[matched - 1]
            }
            if pattern[index] == pattern[matched] {
                matched += 1
            }
            fallback[index] = matched
        }
        self.fallback = fallback
    }

    /// The index of the first occurrence of the pattern in `text` that starts at or after `start`.
    /// The empty pattern occurs at every index, including `text.count`.
    func firstIndex(in text: [UInt32], from start: Int = 0) -> Int? {
        guard !pattern.isEmpty else { return start <= text.count ? start : nil }
        var matched = 0
        for index in Swift.max(start, 0) ..< text.count {
            matched = advance(matched, over: text[index])
            if matched == pattern.count {
                return index - pattern.count + 1
            }
        }
        return nil
    }

    /// The length of the longest prefix of the pattern that `text` ends with.
    func longestPrefix(endingWith text: some Collection<UInt32>) -> Int {
        guard !pattern.isEmpty else { return 0 }
        var matched = 0
        for scalar in text {
            if matched == pattern.count {
                // A whole match, but more text follows: keep only its longest border.
                matched = fallback[matched - 1]
            }
            matched = advance(matched, over: scalar)
        }
        return matched
    }

    /// How much of the pattern is matched after reading `scalar` with `matched` scalars matched.
    private func advance(_ matched: Int, over scalar: UInt32) -> Int {
        var matched = matched
        while matched > 0 && pattern[matched] != scalar {
            matched = fallback[matched - 1]
        }
        return pattern[matched] == scalar ? matched + 1 : matched
    }
}
