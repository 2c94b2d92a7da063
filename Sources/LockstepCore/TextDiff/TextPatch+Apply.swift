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
        /// Whether a hunk applies only if the text it deletes is still there, unchanged, where
        /// its fuzzy match puts it: its context may have changed, but a deletion that overlaps
        /// a concurrent edit makes it fail, where diff-match-patch maps the deletion onto
        /// whatever text it found (two rewrites of "listed", to "packed" and to "loaded", merge
        /// there as "oaded"). Inserts are placed by fuzzy matching either way.
        public var requiresIntactDeletions: Bool

        /// Options with diff-match-patch's defaults, which Simperium uses.
        public init(matchThreshold: Double = 0.5, matchDistance: Int = 1000, deleteThreshold: Double = 0.5,
                    timeout: Duration? = .seconds(1), requiresIntactDeletions: Bool = false) {
            self.matchThreshold = matchThreshold
            self.matchDistance = matchDistance
            self.deleteThreshold = deleteThreshold
            self.timeout = timeout
            self.requiresIntactDeletions = requiresIntactDeletions
        }

        /// How concurrent edits of one string merge, on the server (merge rule 2) and between
        /// peers: diff-match-patch's placement, but overlapping rewrites are a conflict for the
        /// merge rules to settle by time, not a mix of both.
        public static let textMerge = ApplyOptions(requiresIntactDeletions: true)
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
        let matcher = FuzzyMatcher(threshold: options.matchThreshold, distance: options.matchDistance)
        let engine = TextDiffEngine(timeout: options.timeout)

        var patches = self
        let padding = patches.addPadding()
        var text = padding + text + padding
        patches.splitToMaxPatternLength()

        var applied: [Bool] = []
        applied.reserveCapacity(patches.count)
        // How far the text has moved from where the hunks expect it.
        var drift = 0
        for patch in patches {
            let expected = patch.targetStart + drift
            guard let found = patch.place(in: text, near: expected, using: matcher) else {
                applied.append(false)
                // Later hunks expect this one's change in length, which did not happen.
                drift -= patch.targetLength - patch.sourceLength
                continue
            }
            drift = found.lowerBound - expected
            applied.append(patch.apply(
                to: &text, at: found, using: engine, deleteThreshold: options.deleteThreshold,
                requiringIntactDeletions: options.requiresIntactDeletions))
        }
        // Cutting a padding's length off each end assumes the padding survived intact; the
        // padding values are not Unicode scalars, so removing them wherever they are is exact.
        text.removeAll { $0 > TextPatch.largestScalarValue }
        return (text, applied)
    }
}

extension TextPatch {
    /// Where the hunk's source best matches `text` near `expected`, if anywhere.
    fileprivate func place(in text: [UInt32], near expected: Int, using matcher: FuzzyMatcher) -> Range<Int>? {
        let source = edits.sourceScalars
        let maxLength = FuzzyMatcher.maxPatternLength
        guard source.count > maxLength else {
            return matcher.location(of: source[...], in: text, near: expected).map { $0 ..< min(text.count, $0 + source.count) }
        }
        // Too long for one fuzzy match (a large deletion): match both ends.
        guard let start = matcher.location(of: source.prefix(maxLength), in: text, near: expected),
              let endStart = matcher.location(of: source.suffix(maxLength), in: text, near: expected + source.count - maxLength),
              start < endStart else {
            return nil
        }
        return start ..< min(text.count, endStart + maxLength)
    }

    /// Applies the hunk to the part of `text` that matched its source. Returns `false`, and
    /// leaves the text alone, when a large deletion's ends matched but its middle differs too much.
    fileprivate func apply(to text: inout [UInt32], at found: Range<Int>, using engine: TextDiffEngine,
                           deleteThreshold: Double, requiringIntactDeletions: Bool) -> Bool {
        let source = edits.sourceScalars
        if text[found].elementsEqual(source) {
            text.replaceSubrange(found, with: edits.targetScalars)
            return true
        }

        // An inexact match: map the hunk's changes onto what was found through a diff of the
        // source against the text it matched, as diff-match-patch does. (Aligning over a wider
        // window places some changes better, but then concurrent insertions at one place order
        // differently from Simperium's reference, whose vectors every client agrees on.)
        let isLargeDeletion = source.count > FuzzyMatcher.maxPatternLength
        var alignment = engine.edits(from: source, to: [UInt32](text[found]), lineMode: false)
        if isLargeDeletion && Double(TextDiff(alignment).levenshteinDistance) / Double(source.count) > deleteThreshold {
            return false
        }
        alignment.alignToWordBoundaries()
        if requiringIntactDeletions && !deletionsAreIntact(in: text, at: found.lowerBound, alignment: alignment) { return false }
        // Unlike diff-match-patch, which advances its source position over insertions to
        // approximate the shift, map pure source positions and add the shift exactly: the
        // approximation misplaces deletions that follow an insertion near the hunk's end.
        var sourceIndex = 0
        var shift = 0
        for edit in edits {
            let length = edit.scalars.count
            switch edit.operation {
            case .equal:
                sourceIndex += length
            case .insert:
                text.insert(contentsOf: edit.scalars, at: found.lowerBound + shift + alignment.targetIndex(forSourceIndex: sourceIndex))
                shift += length
            case .delete:
                let deletedStart = found.lowerBound + shift + alignment.targetIndex(forSourceIndex: sourceIndex)
                let deletedEnd = found.lowerBound + shift + alignment.targetIndex(forSourceIndex: sourceIndex + length)
                text.removeSubrange(deletedStart ..< deletedEnd)
                shift -= deletedEnd - deletedStart
                sourceIndex += length
            }
        }
        return true
    }

    /// Whether every run of text the hunk deletes is found, unchanged, where the alignment
    /// of its source against the matched text puts it, between the neighbours it had.
    ///
    /// The neighbours count where text repeats: "éé" edited to "é" and merged again into "é"
    /// finds its deleted "é" intact, in the "é" that the first merge left, but only by aligning
    /// the hunk's other "é" with nothing. Its neighbour gone, the deletion has lost its place:
    /// a conflict, not a second deletion.
    private func deletionsAreIntact(in text: [UInt32], at start: Int, alignment: [TextEdit]) -> Bool {
        let sourceCount = edits.sourceScalars.count
        var sourceIndex = 0
        for edit in edits where edit.operation != .insert {
            let length = edit.scalars.count
            if edit.operation == .delete {
                let from = start + alignment.targetIndex(forSourceIndex: sourceIndex)
                let to = start + alignment.targetIndex(forSourceIndex: sourceIndex + length)
                guard text[from..<to].elementsEqual(edit.scalars) else { return false }
                if sourceIndex > 0 && !alignment.keeps(sourceIndex: sourceIndex - 1) { return false }
                if sourceIndex + length < sourceCount && !alignment.keeps(sourceIndex: sourceIndex + length) { return false }
            }
            sourceIndex += length
        }
        return true
    }
}
