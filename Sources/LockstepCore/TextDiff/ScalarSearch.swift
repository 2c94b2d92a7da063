// Comparing and searching runs of scalar values: the primitive operations under the diff,
// the cleanups and the patches.

// Arrays and array slices of scalars, indexed by Int: the loops below compile to plain
// comparisons, which matters on megabyte texts.
extension RandomAccessCollection<UInt32> where Index == Int {
    /// How many scalars this run and `other` share at their start.
    func commonPrefixLength<Other: RandomAccessCollection<UInt32>>(with other: Other) -> Int where Other.Index == Int {
        let limit = Swift.min(count, other.count)
        var length = 0
        while length < limit && self[startIndex + length] == other[other.startIndex + length] {
            length += 1
        }
        return length
    }

    /// How many scalars this run and `other` share at their end.
    func commonSuffixLength<Other: RandomAccessCollection<UInt32>>(with other: Other) -> Int where Other.Index == Int {
        let limit = Swift.min(count, other.count)
        var length = 0
        while length < limit && self[endIndex - 1 - length] == other[other.endIndex - 1 - length] {
            length += 1
        }
        return length
    }

    /// Whether the run ends with `suffix`.
    func hasSuffix<Suffix: RandomAccessCollection<UInt32>>(_ suffix: Suffix) -> Bool where Suffix.Index == Int {
        count >= suffix.count && commonSuffixLength(with: suffix) == suffix.count
    }
}

extension [UInt32] {
    /// The index of the first occurrence of `pattern` that starts at or after `start`. The
    /// empty pattern occurs at every index, including `count`.
    func firstOccurrence(of pattern: [UInt32], from start: Int = 0) -> Int? {
        guard start <= count else { return nil }
        return firstOccurrence(of: pattern, in: Swift.max(start, 0) ..< count)
    }

    /// The index of the first occurrence of `pattern` that lies wholly within `range`.
    ///
    /// A plain scan is fastest on real text; when repetitive input makes it compare too much,
    /// the search finishes with Knuth–Morris–Pratt, so the worst case stays linear.
    func firstOccurrence(of pattern: [UInt32], in range: Range<Int>) -> Int? {
        guard let first = pattern.first else { return range.lowerBound }
        guard pattern.count <= range.count else { return nil }
        // Raw buffers: this loop runs over megabytes, and slicing would retain the storage at
        // every candidate.
        let scan = withUnsafeBufferPointer { text in
            pattern.withUnsafeBufferPointer { pattern in
                var budget = 2 * range.count + pattern.count
                var index = range.lowerBound
                while index <= range.upperBound - pattern.count {
                    if text[index] == first {
                        var matched = 1
                        while matched < pattern.count && text[index + matched] == pattern[matched] {
                            matched += 1
                        }
                        if matched == pattern.count {
                            return PlainScan.found(index)
                        }
                        budget -= matched
                        if budget < 0 {
                            return PlainScan.tooRepetitive(from: index)
                        }
                    }
                    index += 1
                }
                return PlainScan.notFound
            }
        }
        switch scan {
        case .found(let index): return index
        case .notFound: return nil
        case .tooRepetitive(let index):
            return ScalarPatternSearch(pattern).firstIndex(in: self, within: index ..< range.upperBound)
        }
    }

    /// The start of every occurrence of the (non-empty) pattern, overlapping ones included.
    func occurrences(of pattern: [UInt32]) -> [Int] {
        var starts: [Int] = []
        var next = 0
        while let start = firstOccurrence(of: pattern, from: next) {
            starts.append(start)
            next = start + 1
        }
        return starts
    }

    /// The index of the last occurrence of `pattern` that lies wholly within `range`.
    ///
    /// A plain backwards scan: it only ever looks for fuzzy-match patterns, which are at most
    /// 32 scalars long, so its worst case stays linear in practice.
    func lastOccurrence(of pattern: [UInt32], in range: Range<Int>) -> Int? {
        var start = range.upperBound - pattern.count
        while start >= range.lowerBound {
            if self[start ..< start + pattern.count].commonPrefixLength(with: pattern) == pattern.count {
                return start
            }
            start -= 1
        }
        return nil
    }

    /// How far the end of this text overlaps the start of `other`: the length of the longest
    /// suffix of `self` that is also a prefix of `other`. `"abcxxx"` and `"xxxdef"` overlap by 3.
    func overlapLength(withStartOf other: [UInt32]) -> Int {
        let possible = Swift.min(count, other.count)
        guard possible > 0 else { return 0 }
        return ScalarPatternSearch(Array(other[..<possible])).longestPrefix(endingWith: self[(count - possible)...])
    }
}

/// How a plain scan for a pattern ended.
private enum PlainScan {
    case found(Int)
    case notFound
    /// Partial matches cost too much; the search should go on with a linear-time algorithm.
    case tooRepetitive(from: Int)
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

    /// The index of the first occurrence of the (non-empty) pattern that lies wholly within
    /// `range` of `text`.
    func firstIndex(in text: [UInt32], within range: Range<Int>) -> Int? {
        var matched = 0
        for index in range {
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
