/// Simperium's string deltas: the `v` of a jsondiff `{"o": "d", "v": …}` operation, which
/// turns one string into another (see ``TextDiff/delta`` for the format).
///
/// ```swift
/// let delta = TextDelta.make(from: "Hello world", to: "Hello kansas")   // "=6\t-5\t+kansas"
/// try TextDelta.apply(delta, to: "Hello world")                         // "Hello kansas"
/// ```
public enum TextDelta {
    /// The delta that turns `old` into `new`: a diff, cleaned up for efficiency when it has
    /// more than two edits, as Simperium's jsondiff does. Equal empty strings give `""`.
    public static func make(from old: String, to new: String) -> String {
        let (old, new) = (old.scalarValues, new.scalarValues)
        guard old != new else { return diffedDelta(from: old, to: new) }
        let prefix = old.commonPrefixLength(with: new)
        let suffix = old[prefix...].commonSuffixLength(with: new[prefix...])
        if let delta = oneRunDelta(from: old, to: new, commonPrefix: prefix, commonSuffix: suffix) { return delta }
        let edits = TextDiffEngine(timeout: .seconds(1)).edits(from: old, to: new, commonPrefix: prefix, commonSuffix: suffix, lineMode: true)
        return delta(of: TextDiff(edits))
    }

    /// ``make(from:to:)`` through the diff engine, whatever the edit's shape.
    static func diffedDelta(from old: [UInt32], to new: [UInt32]) -> String {
        delta(of: TextDiff(TextDiffEngine(timeout: .seconds(1)).edits(from: old, to: new, lineMode: true)))
    }

    private static func delta(of diff: TextDiff) -> String {
        var diff = diff
        if diff.edits.count > 2 {
            diff.cleanUpForEfficiency()
        }
        return diff.delta
    }

    /// Applies a delta to the text it was made from, exactly.
    ///
    /// - Throws: ``TextDeltaError`` if the delta is malformed or was made from a text of a
    ///   different length.
    public static func apply(_ delta: String, to text: String) throws(TextDeltaError) -> String {
        try apply(CollectionOfOne(delta), to: text)
    }

    /// Applies deltas one after the other, each to the text the one before it made.
    ///
    /// - Throws: ``TextDeltaError`` as soon as one delta does not fit the text it meets.
    public static func apply(_ deltas: some Sequence<String>, to text: String) throws(TextDeltaError) -> String {
        var edited = EditedText(text)
        for delta in deltas {
            try edited.apply(delta)
        }
        return edited.text
    }

    /// Rebases a delta over a concurrent one: `delta` and `other` were both made against
    /// `base`, and `other` has been applied already. Returns the delta that carries `delta`'s
    /// intent over to the text that `other` produced, or `nil` if nothing remains to change.
    ///
    /// The rebase is a fuzzy patch, as in Simperium's jsondiff: `delta` becomes a patch
    /// against `base`, the patch is applied to `other`'s text where its context still matches,
    /// and the result is diffed against `other`'s text. Edits to different places both land;
    /// a hunk whose place `other` rewrote beyond recognition is dropped.
    ///
    /// - Throws: ``TextDeltaError`` if either delta is malformed or does not fit `base`.
    public static func transform(_ delta: String, over other: String, base: String) throws(TextDeltaError) -> String? {
        let otherText = try TextDiff(delta: other, source: base).targetScalars
        let diff = try TextDiff(delta: delta, source: base)
        let patches = TextPatch.make(from: base.scalarValues, edits: diff.edits)
        let merged = patches.apply(to: otherText, options: .init()).text
        guard merged != otherText else { return nil }
        return make(from: String(scalarValues: otherText), to: String(scalarValues: merged))
    }

    /// Carries the edit that took `base` to `edited` over to `current`, a text that concurrent
    /// edits made of `base`, as the server merges concurrent text edits: each patch lands where
    /// its context best matches, and one that deletes only if the text it deletes is intact
    /// there. `nil` when a patch finds no place (the concurrent edits overlapped), a conflict
    /// for the merge rules to settle.
    ///
    /// ```swift
    /// TextDelta.merge(from: "milk", to: "oat milk", into: "milk, eggs")     // "oat milk, eggs"
    /// TextDelta.merge(from: "listed", to: "packed", into: "loaded")          // nil
    /// ```
    public static func merge(from base: String, to edited: String, into current: String) -> String? {
        let (merged, applied) = TextPatch.make(from: base, to: edited).apply(to: current, options: .textMerge)
        return applied.allSatisfy { $0 } ? merged : nil
    }
}
