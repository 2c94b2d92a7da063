extension TextDiff {
    /// Puts the edits in their simplest equivalent form (diff-match-patch's `cleanupMerge`):
    ///
    /// - drops empty edits and joins neighbouring edits of the same kind;
    /// - in each run of changes, puts the deletion before the insertion and moves text that the
    ///   two share at their start or end out into the neighbouring equalities;
    /// - slides a lone change sideways when that swallows a whole equality:
    ///   `A<ins>BA</ins>C` becomes `<ins>AB</ins>AC`.
    ///
    /// The source and target stay the same. Every diff this module computes is already merged;
    /// merge edits that you put together yourself.
    public mutating func mergeAdjacentEdits() {
        edits.mergeAdjacentEdits()
    }
}

extension [TextEdit] {
    /// See ``TextDiff/mergeAdjacentEdits()``.
    mutating func mergeAdjacentEdits() {
        repeat {
            mergeRuns()
        } while slideLoneChangesOverEqualities()
    }

    /// Rewrites every run of changes between two equalities as at most one deletion and one
    /// insertion, factoring out the text they share at either end.
    private mutating func mergeRuns() {
        var merged: [TextEdit] = []
        merged.reserveCapacity(count)
        var deleted: [UInt32] = []
        var inserted: [UInt32] = []

        func closeRun(before equality: [UInt32]) {
            var equality = equality
            if !deleted.isEmpty && !inserted.isEmpty {
                let prefixLength = inserted.commonPrefixLength(with: deleted)
                if prefixLength > 0 {
                    merged.appendEquality(inserted[..<prefixLength])
                    inserted.removeFirst(prefixLength)
                    deleted.removeFirst(prefixLength)
                }
                let suffixLength = inserted.commonSuffixLength(with: deleted)
                if suffixLength > 0 {
                    equality = inserted.suffix(suffixLength) + equality
                    inserted.removeLast(suffixLength)
                    deleted.removeLast(suffixLength)
                }
            }
            if !deleted.isEmpty {
                merged.append(TextEdit(.delete, scalars: deleted))
            }
            if !inserted.isEmpty {
                merged.append(TextEdit(.insert, scalars: inserted))
            }
            merged.appendEquality(equality)
            deleted = []
            inserted = []
        }

        for edit in self {
            switch edit.operation {
            case .delete: deleted += edit.scalars
            case .insert: inserted += edit.scalars
            case .equal: closeRun(before: edit.scalars)
            }
        }
        closeRun(before: [])
        self = merged
    }

    /// Appends kept text, joining it to a final equality if there is one.
    private mutating func appendEquality(_ text: some Collection<UInt32>) {
        guard !text.isEmpty else { return }
        if let last = indices.last, self[last].operation == .equal {
            self[last].scalars += text
        } else {
            append(TextEdit(.equal, scalars: text))
        }
    }

    /// Slides each change that sits alone between two equalities over one of them, when the
    /// change ends with the equality before it or starts with the equality after it; the
    /// equality it slides over disappears. Returns whether anything moved, in which case the
    /// runs need merging again.
    private mutating func slideLoneChangesOverEqualities() -> Bool {
        var slid: [TextEdit] = []
        slid.reserveCapacity(count)
        var moved = false
        var index = 0
        while index < count {
            let change = self[index]
            if change.operation != .equal, index + 1 < count, self[index + 1].operation == .equal,
               let before = slid.last, before.operation == .equal {
                let after = self[index + 1]
                if change.scalars.hasSuffix(before.scalars) {
                    // A<ins>BA</ins>C → <ins>AB</ins>AC
                    slid.removeLast()
                    slid.append(TextEdit(change.operation, scalars: before.scalars + change.scalars.dropLast(before.scalars.count)))
                    self[index + 1].scalars = before.scalars + after.scalars
                    moved = true
                    index += 1
                    continue
                }
                if change.scalars.starts(with: after.scalars) {
                    // A<ins>CB</ins>C → AC<ins>BC</ins>
                    slid[slid.count - 1].scalars += after.scalars
                    slid.append(TextEdit(change.operation, scalars: change.scalars.dropFirst(after.scalars.count) + after.scalars))
                    moved = true
                    index += 2
                    continue
                }
            }
            slid.append(change)
            index += 1
        }
        self = slid
        return moved
    }
}
