extension TextDiffEngine {
    /// Two texts cut around a run they share.
    struct HalfMatch {
        var oldPrefix: [UInt32]
        var oldSuffix: [UInt32]
        var newPrefix: [UInt32]
        var newSuffix: [UInt32]
        var common: [UInt32]
    }

    /// Looks for a run shared by both texts that is at least half as long as the longer text.
    ///
    /// Diffing the pieces on either side of such a run separately is much faster than diffing
    /// the whole, but the shortest diff may not keep that run, so the shortcut is only taken
    /// when a deadline says that speed matters more than the optimum.
    func halfMatch(_ old: [UInt32], _ new: [UInt32]) -> HalfMatch? {
        guard deadline != nil else { return nil }
        let oldIsLonger = old.count > new.count
        let (longer, shorter) = oldIsLonger ? (old, new) : (new, old)
        guard longer.count >= 4, shorter.count * 2 >= longer.count else { return nil }

        // A shared run of half the longer text must contain its second or its third quarter.
        let aroundSecondQuarter = sharedRun(in: longer, and: shorter, seededAt: (longer.count + 3) / 4)
        let aroundThirdQuarter = sharedRun(in: longer, and: shorter, seededAt: (longer.count + 1) / 2)
        let best: SharedRun
        switch (aroundSecondQuarter, aroundThirdQuarter) {
        case (nil, nil): return nil
        case (let second?, nil): best = second
        case (nil, let third?): best = third
        case (let second?, let third?): best = second.length > third.length ? second : third
        }

        let longerPrefix = Array(longer[..<best.inLonger.lowerBound])
        let longerSuffix = Array(longer[best.inLonger.upperBound...])
        let shorterPrefix = Array(shorter[..<best.inShorter.lowerBound])
        let shorterSuffix = Array(shorter[best.inShorter.upperBound...])
        let common = Array(shorter[best.inShorter])
        return oldIsLonger
            ? HalfMatch(oldPrefix: longerPrefix, oldSuffix: longerSuffix, newPrefix: shorterPrefix, newSuffix: shorterSuffix, common: common)
            : HalfMatch(oldPrefix: shorterPrefix, oldSuffix: shorterSuffix, newPrefix: longerPrefix, newSuffix: longerSuffix, common: common)
    }

    /// Where a run appears in the longer and in the shorter text.
    private struct SharedRun {
        var inLonger: Range<Int>
        var inShorter: Range<Int>
        var length: Int { inLonger.count }
    }

    /// The longest run shared by both texts that contains the quarter of `longer` starting at
    /// `seedStart`, if it is at least half as long as `longer`.
    private func sharedRun(in longer: [UInt32], and shorter: [UInt32], seededAt seedStart: Int) -> SharedRun? {
        let seed = Array(longer[seedStart ..< seedStart + longer.count / 4])
        var best: SharedRun?
        var searchFrom = 0
        while let seedInShorter = shorter.firstOccurrence(of: seed, from: searchFrom) {
            let after = longer[seedStart...].commonPrefixLength(with: shorter[seedInShorter...])
            let before = longer[..<seedStart].commonSuffixLength(with: shorter[..<seedInShorter])
            if after + before > best?.length ?? 0 {
                best = SharedRun(
                    inLonger: seedStart - before ..< seedStart + after,
                    inShorter: seedInShorter - before ..< seedInShorter + after
                )
            }
            // A seed that recurs all over a repetitive text makes this loop quadratic; the
            // half match exists to save time, so it stops with what it has at the deadline.
            if isPastDeadline { break }
            searchFrom = seedInShorter + 1
        }
        guard let best, best.length * 2 >= longer.count else { return nil }
        return best
    }
}
