/// Computes the edits between two runs of scalars.
///
/// The core is Myers' O(ND) algorithm (see `TextDiffEngine+Bisect.swift`). Around it sit the
/// speedups of diff-match-patch, tried from cheapest to dearest: trim the common prefix and
/// suffix, answer the trivial shapes directly, split around a long shared middle (the half
/// match), and diff long texts line by line first (line mode).
struct TextDiffEngine {
    /// When to stop looking for the shortest diff and settle for a valid but longer one;
    /// `nil` never gives up.
    let deadline: ContinuousClock.Instant?

    init(timeout: Duration?) {
        deadline = timeout.map { ContinuousClock.now + $0 }
    }

    var isPastDeadline: Bool {
        guard let deadline else { return false }
        return ContinuousClock.now >= deadline
    }

    /// The edits that turn `old` into `new`, merged (see `mergeAdjacentEdits()`).
    ///
    /// - Parameter lineMode: Whether texts over 100 scalars may be diffed line by line first.
    func edits(from old: [UInt32], to new: [UInt32], lineMode: Bool) -> [TextEdit] {
        if old == new {
            return old.isEmpty ? [] : [TextEdit(.equal, scalars: old)]
        }
        let prefixLength = old.commonPrefixLength(with: new)
        let suffixLength = old[prefixLength...].commonSuffixLength(with: new[prefixLength...])
        return edits(from: old, to: new, commonPrefix: prefixLength, commonSuffix: suffixLength, lineMode: lineMode)
    }

    /// ``edits(from:to:lineMode:)`` of two different texts whose common prefix and suffix, in
    /// scalars, are known (the suffix measured after the prefix).
    func edits(from old: [UInt32], to new: [UInt32], commonPrefix prefixLength: Int, commonSuffix suffixLength: Int, lineMode: Bool)
        -> [TextEdit]
    {
        var edits: [TextEdit] = []
        if prefixLength > 0 {
            edits.append(TextEdit(.equal, scalars: old[..<prefixLength]))
        }
        edits += editsBetweenDifferentEnds(
            from: Array(old[prefixLength ..< old.count - suffixLength]),
            to: Array(new[prefixLength ..< new.count - suffixLength]),
            lineMode: lineMode
        )
        if suffixLength > 0 {
            edits.append(TextEdit(.equal, scalars: old[(old.count - suffixLength)...]))
        }
        edits.mergeAdjacentEdits()
        return edits
    }

    /// The edits between two texts that differ at their first and at their last scalar.
    private func editsBetweenDifferentEnds(from old: [UInt32], to new: [UInt32], lineMode: Bool) -> [TextEdit] {
        if old.isEmpty {
            return [TextEdit(.insert, scalars: new)]
        }
        if new.isEmpty {
            return [TextEdit(.delete, scalars: old)]
        }

        let oldIsLonger = old.count > new.count
        let (longer, shorter) = oldIsLonger ? (old, new) : (new, old)
        if let start = longer.firstOccurrence(of: shorter) {
            // The shorter text sits inside the longer one: all around it is inserted or deleted.
            let operation: TextEdit.Operation = oldIsLonger ? .delete : .insert
            return [
                TextEdit(operation, scalars: longer[..<start]),
                TextEdit(.equal, scalars: shorter),
                TextEdit(operation, scalars: longer[(start + shorter.count)...]),
            ]
        }
        if shorter.count == 1 {
            // A single scalar that the other text does not contain: nothing is shared.
            return [TextEdit(.delete, scalars: old), TextEdit(.insert, scalars: new)]
        }

        if let halfMatch = halfMatch(old, new) {
            return edits(from: halfMatch.oldPrefix, to: halfMatch.newPrefix, lineMode: lineMode)
                + [TextEdit(.equal, scalars: halfMatch.common)]
                + edits(from: halfMatch.oldSuffix, to: halfMatch.newSuffix, lineMode: lineMode)
        }
        if lineMode && old.count > 100 && new.count > 100 {
            return lineModeEdits(from: old, to: new)
        }
        return bisect(old, new)
    }
}
