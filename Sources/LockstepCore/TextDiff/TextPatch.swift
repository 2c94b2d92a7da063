/// One hunk of a patch: edits with some unchanged text around them as context, and where they
/// apply (diff-match-patch's `patch_obj`).
///
/// A patch is an array of hunks, made against one text and applicable to a different one:
/// ``apply(to:options:)`` looks for each hunk's context near where it is expected and
/// tolerates differences, which is how concurrent edits to the same text get merged.
///
/// ```swift
/// let patch = TextPatch.make(from: "The quick brown fox.", to: "The quick red fox.")
/// patch.apply(to: "Look: the quick brown fox!").text   // "Look: the quick red fox!"
/// ```
///
/// Positions and lengths count Unicode scalars. Each hunk's positions assume that the hunks
/// before it have been applied.
public struct TextPatch: Hashable, Sendable {
    /// The edits, starting and ending with context (`equal` edits) where the text has any.
    public internal(set) var edits: [TextEdit] = []
    /// Where the hunk starts in the text it applies to.
    public internal(set) var sourceStart = 0
    /// Where the hunk starts in the text it produces.
    public internal(set) var targetStart = 0
    /// The length of the text the hunk replaces, context included.
    public internal(set) var sourceLength = 0
    /// The length of the text that replaces it, context included.
    public internal(set) var targetLength = 0

    /// How much context surrounds each change, at least, in scalars: more makes hunks more
    /// likely to find their place in a changed text, and more likely to conflict.
    static let contextMargin = 4

    /// The hunks that turn `source` into `target`, from a diff cleaned up for people and then
    /// for efficiency.
    public static func make(from source: String, to target: String) -> [TextPatch] {
        var diff = TextDiff(from: source, to: target)
        if diff.edits.count > 2 {
            diff.cleanUpSemantically()
            diff.cleanUpForEfficiency()
        }
        return make(from: source, diff: diff)
    }

    /// The hunks that apply `diff` to `source`, the text it was made from.
    public static func make(from source: String, diff: TextDiff) -> [TextPatch] {
        make(from: source.scalarValues, edits: diff.edits)
    }

    /// Groups the edits into hunks: changes closer than two context margins share a hunk.
    static func make(from source: [UInt32], edits: [TextEdit]) -> [TextPatch] {
        var patches: [TextPatch] = []
        var hunk = TextPatch()
        // The source with the hunks so far applied: each hunk's positions and context refer to it.
        var patchedSource = source
        var sourceIndex = 0
        var targetIndex = 0

        func closeHunk() {
            // Positions in the hunk count from `patchedSource`, so apply the hunk to it only
            // after taking its context.
            let replaced = hunk.sourceStart ..< hunk.sourceStart + hunk.sourceLength
            let replacement = hunk.edits.targetScalars
            hunk.addContext(from: patchedSource)
            patches.append(hunk)
            patchedSource.replaceSubrange(replaced, with: replacement)
            hunk = TextPatch()
            sourceIndex = targetIndex
        }

        for (index, edit) in edits.enumerated() {
            let length = edit.scalars.count
            if hunk.edits.isEmpty && edit.operation != .equal {
                hunk.sourceStart = sourceIndex
                hunk.targetStart = targetIndex
            }
            switch edit.operation {
            case .insert:
                hunk.edits.append(edit)
                hunk.targetLength += length
            case .delete:
                hunk.edits.append(edit)
                hunk.sourceLength += length
            case .equal:
                if length <= 2 * contextMargin && !hunk.edits.isEmpty && index != edits.count - 1 {
                    // Short enough to keep the changes on either side in one hunk.
                    hunk.edits.append(edit)
                    hunk.sourceLength += length
                    hunk.targetLength += length
                } else if length >= 2 * contextMargin && !hunk.edits.isEmpty {
                    closeHunk()
                }
            }
            if edit.operation != .insert { sourceIndex += length }
            if edit.operation != .delete { targetIndex += length }
        }
        if !hunk.edits.isEmpty {
            closeHunk()
        }
        return patches
    }

    /// Surrounds the hunk with enough unchanged text from `text` to make it unique there, up
    /// to the longest pattern that fuzzy matching handles, then one margin more.
    mutating func addContext(from text: [UInt32]) {
        guard !text.isEmpty else { return }
        let margin = Self.contextMargin
        func window(_ padding: Int) -> Range<Int> {
            max(0, targetStart - padding) ..< min(text.count, targetStart + sourceLength + padding)
        }
        // Widen the window by a margin at a time while it also occurs elsewhere. Every other
        // occurrence of a wider window contains one of the narrower window, so a single scan
        // finds the candidates and each widening only filters them.
        var padding = 0
        var otherStarts: [Int] = []
        var scanned: Range<Int>?
        while window(padding).count < FuzzyMatcher.maxPatternLength - 2 * margin {
            let current = window(padding)
            guard !current.isEmpty else {
                // The empty window occurs everywhere.
                padding += margin
                continue
            }
            if let previous = scanned {
                let shift = previous.lowerBound - current.lowerBound
                otherStarts = otherStarts.map { $0 - shift }.filter { start in
                    start >= 0 && start + current.count <= text.count && text[start ..< start + current.count] == text[current]
                }
            } else {
                otherStarts = text.occurrences(of: Array(text[current])).filter { $0 != current.lowerBound }
            }
            guard !otherStarts.isEmpty else { break }
            scanned = current
            padding += margin
        }
        padding += margin

        let prefix = text[max(0, targetStart - padding) ..< targetStart]
        let suffix = text[min(text.count, targetStart + sourceLength) ..< min(text.count, targetStart + sourceLength + padding)]
        if !prefix.isEmpty {
            edits.insert(TextEdit(.equal, scalars: prefix), at: 0)
        }
        if !suffix.isEmpty {
            edits.append(TextEdit(.equal, scalars: suffix))
        }
        sourceStart -= prefix.count
        targetStart -= prefix.count
        sourceLength += prefix.count + suffix.count
        targetLength += prefix.count + suffix.count
    }
}
