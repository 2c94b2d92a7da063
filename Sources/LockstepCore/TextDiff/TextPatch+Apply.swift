extension TextPatch {
    /// How closely a patch must match a text that has changed since the patch was made.
    public struct ApplyOptions: Hashable, Sendable {
        /// The worst fuzzy match accepted for a hunk's text, from 0 (exact) to 1 (anything):
        /// a match scores its error rate plus its distance from the expected place divided by
        /// ``matchDistance``.
        public var matchThreshold: Double
        /// How far from its expected place, in scalars, a hunk may be found before the distance
        /// alone rules it out (at the default threshold, half this). 0 demands the exact place.
        public var matchDistance: Int
        /// For hunks that delete more than 32 scalars, found by their two ends: the share of the
        /// text between the ends that may differ from what the hunk expects to delete.
        public var deleteThreshold: Double
        /// The time allowed for diffing a hunk against an inexact match of it.
        public var timeout: Duration?

        public init(matchThreshold: Double = 0.5, matchDistance: Int = 1000, deleteThreshold: Double = 0.5,
                    timeout: Duration? = .seconds(1)) {
            self.matchThreshold = matchThreshold
            self.matchDistance = matchDistance
            self.deleteThreshold = deleteThreshold
            self.timeout = timeout
        }
    }
}

extension [TextPatch] {
    /// Applies the hunks to `text`, each where its context best matches near its expected
    /// place, and reports which hunks found a place (diff-match-patch's `patch_apply`).
    ///
    /// A hunk that finds no good enough match is skipped, and the text stays as it was there.
    public func apply(to text: String, options: TextPatch.ApplyOptions = .init()) -> (text: String, applied: [Bool]) {
        let (patched, applied) = apply(to: text.scalarValues, options: options)
        return (String(scalarValues: patched), applied)
    }

    func apply(to text: [UInt32], options: TextPatch.ApplyOptions) -> (text: [UInt32], applied: [Bool]) {
        guard !isEmpty else { return (text, []) }
        let maxLength = FuzzyMatcher.maxPatternLength
        let matcher = FuzzyMatcher(threshold: options.matchThreshold, distance: options.matchDistance)
        let engine = TextDiffEngine(timeout: options.timeout)

        var patches = self
        let padding = patches.addPadding()
        var text = padding + text + padding
        patches.splitToMaxPatternLength()

        var applied: [Bool] = []
        applied.reserveCapacity(patches.count)
        // How far the text has moved relative to where the hunks expect it.
        var drift = 0
        for patch in patches {
            let expected = patch.targetStart + drift
            let source = patch.edits.sourceScalars
            var start: Int?
            var endOfLongMatch: Int?
            if source.count > maxLength {
                // Too long for one fuzzy match (a large deletion): find both ends.
                start = matcher.location(of: source.prefix(maxLength), in: text, near: expected)
                if let found = start {
                    endOfLongMatch = matcher.location(of: source.suffix(maxLength), in: text, near: expected + source.count - maxLength)
                    if endOfLongMatch.map({ found >= $0 }) ?? true {
                        start = nil
                    }
                }
            } else {
                start = matcher.location(of: source[...], in: text, near: expected)
            }
            guard let start else {
                applied.append(false)
                // Later hunks expect this one's change in length; it did not happen.
                drift -= patch.targetLength - patch.sourceLength
                continue
            }
            drift = start - expected
            let end = Swift.min(text.count, endOfLongMatch.map { $0 + maxLength } ?? start + source.count)
            let found = text[start ..< end]
            if found.elementsEqual(source) {
                text.replaceSubrange(start ..< end, with: patch.edits.targetScalars)
                applied.append(true)
                continue
            }
            // An inexact match: map the hunk's changes onto what was found through a diff.
            let alignment = engine.edits(from: source, to: [UInt32](found), lineMode: false)
            if source.count > maxLength
                && Double(TextDiff(alignment).levenshteinDistance) / Double(source.count) > options.deleteThreshold {
                // The ends match but too much of what lies between them differs.
                applied.append(false)
                continue
            }
            var aligned = alignment
            aligned.alignToWordBoundaries()
            // Unlike diff-match-patch, which advances its source position over insertions to
            // approximate the shift, map pure source positions and add the shift exactly: the
            // approximation misplaces deletions that follow an insertion near the hunk's end.
            var sourceIndex = 0
            var shift = 0
            for edit in patch.edits {
                let length = edit.scalars.count
                switch edit.operation {
                case .equal:
                    sourceIndex += length
                case .insert:
                    text.insert(contentsOf: edit.scalars, at: start + shift + aligned.targetIndex(forSourceIndex: sourceIndex))
                    shift += length
                case .delete:
                    let deletedStart = start + shift + aligned.targetIndex(forSourceIndex: sourceIndex)
                    let deletedEnd = start + shift + aligned.targetIndex(forSourceIndex: sourceIndex + length)
                    text.removeSubrange(deletedStart ..< deletedEnd)
                    shift -= deletedEnd - deletedStart
                    sourceIndex += length
                }
            }
            applied.append(true)
        }
        // Cutting a padding's length off each end assumes the padding survived intact; the
        // padding values are not Unicode scalars, so removing them wherever they are is exact.
        text.removeAll { $0 > TextPatch.largestScalarValue }
        return (text, applied)
    }
}
