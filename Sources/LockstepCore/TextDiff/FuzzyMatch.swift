/// Finds where a short pattern best matches a text near an expected place, allowing errors:
/// diff-match-patch's `match_main`, built on the Bitap algorithm (Wu and Manber, "Fast Text
/// Searching Allowing Errors", 1992).
///
/// A candidate's score is its error rate plus its distance from the expected place divided by
/// ``distance``: 0 is an exact match right there, and anything above ``threshold`` is no match.
struct FuzzyMatcher {
    /// The worst score that still counts as a match: 0 demands perfection, 1 accepts anything.
    var threshold: Double
    /// How far from the expected place, in scalars, a match costs as much as getting every
    /// scalar wrong. 0 demands the exact place.
    var distance: Int

    /// Bitap keeps one bit per pattern scalar in a machine word.
    static let maxPatternLength = 32

    /// The index in `text` of the best match for `pattern` near `expected`, if any scores at
    /// most ``threshold``.
    func location(of pattern: ArraySlice<UInt32>, in text: [UInt32], near expected: Int) -> Int? {
        let expected = max(0, min(expected, text.count))
        if text[...] == pattern {
            return 0
        }
        if text.isEmpty {
            return nil
        }
        if expected + pattern.count <= text.count && text[expected ..< expected + pattern.count] == pattern {
            return expected
        }
        return bitap(pattern, in: text, near: expected)
    }

    /// Bitap: for each number of errors `e` in turn, tracks with one bit per pattern suffix
    /// whether that suffix matches the text from each position on with at most `e` errors
    /// (insertions, deletions or substitutions). Each round scans only as far from `expected`
    /// as a match could still beat the best score so far.
    func bitap(_ pattern: ArraySlice<UInt32>, in text: [UInt32], near expected: Int) -> Int? {
        precondition(pattern.count <= Self.maxPatternLength, "fuzzy match pattern longer than \(Self.maxPatternLength)")
        let pattern = Array(pattern)
        let masks = Self.alphabetMasks(of: pattern)

        func score(errors: Int, at location: Int) -> Double {
            let accuracy = Double(errors) / Double(pattern.count)
            let proximity = abs(expected - location)
            guard distance > 0 else {
                return proximity == 0 ? accuracy : 1
            }
            return accuracy + Double(proximity) / Double(distance)
        }

        // The nearest exact matches on either side of the expected place set the bar to beat.
        // Only those within reach can beat the threshold, so only there is worth searching
        // (diff-match-patch searches the whole text, and looks back only if it found one ahead).
        var scoreThreshold = threshold
        let reach = Self.reach(threshold: threshold, distance: distance, limit: text.count)
        let aheadEnd = min(text.count, expected + reach + pattern.count)
        if let exact = text.firstOccurrence(of: pattern, in: min(expected, aheadEnd) ..< aheadEnd) {
            scoreThreshold = min(score(errors: 0, at: exact), scoreThreshold)
        }
        let behindEnd = min(text.count, expected + pattern.count)
        if let exact = text.lastOccurrence(of: pattern, in: min(max(0, expected - reach), behindEnd) ..< behindEnd) {
            scoreThreshold = min(score(errors: 0, at: exact), scoreThreshold)
        }

        let matchMask: UInt64 = 1 << (pattern.count - 1)
        var bestLocation: Int?
        var searchRadius = pattern.count + text.count
        var previousRound: [UInt64] = []
        for errors in 0 ..< pattern.count {
            // Binary search for how far from `expected` a match with this many errors could
            // still score under the threshold.
            var low = 0
            var mid = searchRadius
            while low < mid {
                if score(errors: errors, at: expected + mid) <= scoreThreshold {
                    low = mid
                } else {
                    searchRadius = mid
                }
                mid = (searchRadius - low) / 2 + low
            }
            searchRadius = mid

            var start = max(1, expected - mid + 1)
            let finish = min(expected + mid, text.count) + pattern.count
            // Scanning right to left, bit b of round[j] says whether the last b + 1 scalars of
            // the pattern match the text from j − 1 on: bit pattern.count − 1 is a whole match.
            var round = [UInt64](repeating: 0, count: finish + 2)
            round[finish + 1] = (1 << errors) - 1
            func previous(_ index: Int) -> UInt64 {
                index < previousRound.count ? previousRound[index] : 0
            }
            var j = finish
            while j >= start {
                let scalarMask = j - 1 < text.count ? masks[text[j - 1], default: 0] : 0
                let exact = (round[j + 1] << 1 | 1) & scalarMask
                if errors == 0 {
                    round[j] = exact
                } else {
                    // An exact step, or one more error than the previous round had: a wrong
                    // scalar (one on, shifted), a scalar missing from the text (same place,
                    // shifted) or an extra scalar in the text (one on, not shifted).
                    round[j] = exact | ((previous(j + 1) | previous(j)) << 1 | 1) | previous(j + 1)
                }
                if round[j] & matchMask != 0 {
                    let candidate = score(errors: errors, at: j - 1)
                    if candidate <= scoreThreshold {
                        scoreThreshold = candidate
                        bestLocation = j - 1
                        guard j - 1 > expected else {
                            // Already past the expected place: it only gets worse from here.
                            break
                        }
                        // Do not stray further to the left than this match is to the right.
                        start = max(1, 2 * expected - (j - 1))
                    }
                }
                j -= 1
            }
            if score(errors: errors + 1, at: expected) > scoreThreshold {
                // One more error cannot beat the best match, even at the expected place.
                break
            }
            previousRound = round
        }
        return bestLocation
    }

    /// How far from the expected place an exact match can still score within `threshold`, at
    /// most `limit` (and a little more: a wider search costs nothing in correctness).
    private static func reach(threshold: Double, distance: Int, limit: Int) -> Int {
        let scaled = threshold * Double(distance)
        guard distance > 0, scaled > 0 else { return 0 }
        return Int(min(scaled, Double(limit))) + 1
    }

    /// For each scalar of the pattern, a mask with the bits of its positions set, the first
    /// scalar in the highest bit.
    static func alphabetMasks(of pattern: [UInt32]) -> [UInt32: UInt64] {
        var masks: [UInt32: UInt64] = [:]
        for (index, scalar) in pattern.enumerated() {
            masks[scalar, default: 0] |= 1 << (pattern.count - index - 1)
        }
        return masks
    }
}
