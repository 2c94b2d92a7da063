extension TextDiff {
    /// Rewrites the edits to be cheap to store and send (diff-match-patch's `cleanupEfficiency`).
    ///
    /// Every change costs something beyond its text: a token in a delta, a hunk header in a
    /// patch. So a short equality squeezed between changes costs more than it saves:
    /// `-ab +12 =xyz -cd +34` is better sent as `-abxyzcd +12xyz34`. This cleanup turns an
    /// equality shorter than `editCost` into a deletion and an insertion when it has changes of
    /// both kinds on both sides, and one shorter than half of `editCost` when it has changes of
    /// three of those four kinds.
    ///
    /// - Parameter editCost: What one change costs, in scalars. Simperium's jsondiff uses 4.
    public mutating func cleanUpForEfficiency(editCost: Int = 4) {
        edits.cleanUpForEfficiency(editCost: editCost)
    }
}

extension [TextEdit] {
    /// See ``TextDiff/cleanUpForEfficiency(editCost:)``.
    mutating func cleanUpForEfficiency(editCost: Int = 4) {
        // Equalities are replaced in place and expanded at the end, so that indices stay valid
        // while the scan backs up.
        var replaced = [Bool](repeating: false, count: count)
        // Short equalities since the last long one: candidates for replacement.
        var candidates: [Int] = []
        var lastCandidate: Int?
        var insertBefore = false
        var deleteBefore = false
        var insertAfter = false
        var deleteAfter = false

        var index = 0
        while index < count {
            if self[index].operation == .equal && !replaced[index] {
                if self[index].scalars.count < editCost && (insertAfter || deleteAfter) {
                    candidates.append(index)
                    insertBefore = insertAfter
                    deleteBefore = deleteAfter
                    lastCandidate = index
                } else {
                    // A long equality, or one with no change before it, is worth keeping, and
                    // no equality before it can become a candidate again.
                    candidates = []
                    lastCandidate = nil
                }
                insertAfter = false
                deleteAfter = false
            } else {
                if self[index].operation != .delete { insertAfter = true }
                if self[index].operation != .insert { deleteAfter = true }
                let kindsAround = [insertBefore, deleteBefore, insertAfter, deleteAfter].count(where: \.self)
                if let candidate = lastCandidate,
                   kindsAround == 4 || (kindsAround == 3 && self[candidate].scalars.count * 2 < editCost) {
                    replaced[candidate] = true
                    candidates.removeLast()
                    lastCandidate = nil
                    if insertBefore && deleteBefore {
                        // Nothing before the candidate changed, so keep going.
                        insertAfter = true
                        deleteAfter = true
                        candidates = []
                    } else {
                        // The equality before may now qualify: scan again from the one before that.
                        _ = candidates.popLast()
                        index = candidates.last ?? -1
                        insertAfter = false
                        deleteAfter = false
                    }
                }
            }
            index += 1
        }

        replaceEqualities(where: replaced)
    }
}
