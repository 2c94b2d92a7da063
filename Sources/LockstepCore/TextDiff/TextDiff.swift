/// The edits that turn one text into another: a diff in the sense of Neil Fraser's
/// diff-match-patch, which Simperium's `d` string deltas are written in.
///
/// ```swift
/// var diff = TextDiff(from: "Hello world", to: "Hello kansas")
/// diff.edits        // [="Hello ", -"world", +"kansas"]
/// diff.delta        // "=6\t-5\t+kansas"
/// ```
///
/// Computing a diff finds a shortest edit script (Myers' O(ND) algorithm) with the speedups
/// of diff-match-patch. The cleanups then trade minimality for edits that suit a purpose:
/// ``cleanUpSemantically()`` for people reading them, ``cleanUpForEfficiency(editCost:)``
/// for machines storing or sending them.
///
/// Lengths in the edits are in Unicode scalars, so a diff never splits a surrogate pair; the
/// ``delta`` counts UTF-16 code units, as the wire format requires.
public struct TextDiff: Hashable, Sendable {
    /// The edits in order: the source is every `equal` and `delete`, the target every `equal` and `insert`.
    public var edits: [TextEdit]

    /// Wraps edits, for example to clean them up or to encode them as a delta.
    public init(_ edits: [TextEdit] = []) {
        self.edits = edits
    }

    /// Computes the edits that turn `source` into `target`.
    ///
    /// Texts over 100 scalars with several lines each are diffed line by line first, then
    /// scalar by scalar within the changed lines: much faster, and rarely any longer.
    ///
    /// - Parameter timeout: How long to look for the shortest diff before settling for a valid
    ///   but longer one. A timeout also enables a shortcut for texts that share a long middle
    ///   (the half match), which may miss the shortest diff. `nil` never gives up and never
    ///   takes the shortcut.
    public init(from source: String, to target: String, timeout: Duration? = .seconds(1)) {
        let engine = TextDiffEngine(timeout: timeout)
        edits = engine.edits(from: source.scalarValues, to: target.scalarValues, lineMode: true)
    }

    /// The text the edits start from: every `equal` and `delete`.
    public var source: String { String(scalarValues: sourceScalars) }

    /// The text the edits produce: every `equal` and `insert`.
    public var target: String { String(scalarValues: targetScalars) }

    /// The number of scalars inserted, deleted or substituted: the Levenshtein distance between
    /// the source and the target as far as these edits go (an insertion next to a deletion counts
    /// as substitutions).
    public var levenshteinDistance: Int {
        var distance = 0
        var inserted = 0
        var deleted = 0
        for edit in edits {
            switch edit.operation {
            case .insert: inserted += edit.scalars.count
            case .delete: deleted += edit.scalars.count
            case .equal:
                distance += max(inserted, deleted)
                inserted = 0
                deleted = 0
            }
        }
        return distance + max(inserted, deleted)
    }

    var sourceScalars: [UInt32] { edits.sourceScalars }

    var targetScalars: [UInt32] { edits.targetScalars }
}

extension [TextEdit] {
    /// The text these edits start from: every `equal` and `delete`.
    var sourceScalars: [UInt32] { joinedScalars(skipping: .insert) }

    /// The text these edits produce: every `equal` and `insert`.
    var targetScalars: [UInt32] { joinedScalars(skipping: .delete) }

    private func joinedScalars(skipping skipped: TextEdit.Operation) -> [UInt32] {
        var scalars: [UInt32] = []
        scalars.reserveCapacity(reduce(0) { $0 + ($1.operation == skipped ? 0 : $1.scalars.count) })
        for edit in self where edit.operation != skipped {
            scalars += edit.scalars
        }
        return scalars
    }

    /// Where a position in the source ends up in the target: positions inside deleted text map
    /// to where the deletion was.
    func targetIndex(forSourceIndex sourceIndex: Int) -> Int {
        var sourceEnd = 0
        var targetEnd = 0
        for edit in self {
            let previousSourceEnd = sourceEnd
            let previousTargetEnd = targetEnd
            if edit.operation != .insert { sourceEnd += edit.scalars.count }
            if edit.operation != .delete { targetEnd += edit.scalars.count }
            if sourceEnd > sourceIndex {
                // The position lies in this edit.
                if edit.operation == .delete { return previousTargetEnd }
                return previousTargetEnd + (sourceIndex - previousSourceEnd)
            }
        }
        return targetEnd + (sourceIndex - sourceEnd)
    }

    /// Whether the source scalar at `sourceIndex` is kept (part of an `equal` edit), not deleted.
    func keeps(sourceIndex: Int) -> Bool {
        var sourceEnd = 0
        for edit in self where edit.operation != .insert {
            sourceEnd += edit.scalars.count
            if sourceEnd > sourceIndex { return edit.operation == .equal }
        }
        return false
    }
}
