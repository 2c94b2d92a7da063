extension TextDiff {
    /// Rewrites the edits for a person to read (diff-match-patch's `cleanupSemantic`).
    ///
    /// A shortest diff is often a confetti of tiny equalities: `mouse` → `sofas` keeps the `o`
    /// and the `s`. This cleanup turns every equality that is no longer than the changes on both
    /// sides of it into a deletion plus an insertion, so that whole words change; aligns the
    /// remaining changes to word boundaries (``alignToWordBoundaries()``); and where a deletion
    /// and an insertion overlap by at least half of one of them, keeps the overlap:
    /// `<del>abcxxx</del><ins>xxxdef</ins>` becomes `<del>abc</del>xxx<ins>def</ins>`.
    ///
    /// The source and target stay the same; the diff usually gets longer.
    public mutating func cleanUpSemantically() {
        edits.cleanUpSemantically()
    }
}

extension [TextEdit] {
    /// See ``TextDiff/cleanUpSemantically()``.
    mutating func cleanUpSemantically() {
        eliminateSmallEqualities()
        alignToWordBoundaries()
        keepOverlapsOfDeletionsAndInsertions()
    }

    /// Replaces each equality that is no longer than the largest change before it and the
    /// largest change after it by a deletion and an insertion of its text.
    private mutating func eliminateSmallEqualities() {
        // Equalities are replaced in place and expanded at the end, so that indices stay valid
        // while the scan backs up.
        var replaced = [Bool](repeating: false, count: count)
        var equalities: [Int] = []
        var lastEquality: Int?
        var insertedBefore = 0
        var deletedBefore = 0
        var insertedAfter = 0
        var deletedAfter = 0

        var index = 0
        while index < count {
            if self[index].operation == .equal && !replaced[index] {
                equalities.append(index)
                insertedBefore = insertedAfter
                deletedBefore = deletedAfter
                insertedAfter = 0
                deletedAfter = 0
                lastEquality = index
            } else {
                let length = self[index].scalars.count
                if self[index].operation != .delete { insertedAfter += length }
                if self[index].operation != .insert { deletedAfter += length }
                if let equality = lastEquality,
                   self[equality].scalars.count <= Swift.max(insertedBefore, deletedBefore),
                   self[equality].scalars.count <= Swift.max(insertedAfter, deletedAfter) {
                    replaced[equality] = true
                    equalities.removeLast()
                    // The equality before this one may now be small enough too: scan again
                    // from the one before that.
                    _ = equalities.popLast()
                    index = equalities.last ?? -1
                    insertedAfter = 0
                    deletedAfter = 0
                    lastEquality = nil
                }
            }
            index += 1
        }

        replaceEqualities(where: replaced)
    }

    /// Where a deletion is followed by an insertion that starts with the end of the deletion
    /// (or ends with its start), keeps the shared text, if it is at least half as long as the
    /// deletion or the insertion.
    private mutating func keepOverlapsOfDeletionsAndInsertions() {
        var result: [TextEdit] = []
        result.reserveCapacity(count)
        var index = 0
        while index < count {
            guard index + 1 < count, self[index].operation == .delete, self[index + 1].operation == .insert else {
                result.append(self[index])
                index += 1
                continue
            }
            let deletion = self[index].scalars
            let insertion = self[index + 1].scalars
            let overlap = deletion.overlapLength(withStartOf: insertion)
            let reverseOverlap = insertion.overlapLength(withStartOf: deletion)
            if overlap >= reverseOverlap && overlap > 0 && Self.isSubstantial(overlap, deletion, insertion) {
                // <del>abcxxx</del><ins>xxxdef</ins> → <del>abc</del>xxx<ins>def</ins>
                result.appendUnlessEmpty(.delete, deletion.dropLast(overlap))
                result.append(TextEdit(.equal, scalars: insertion.prefix(overlap)))
                result.appendUnlessEmpty(.insert, insertion.dropFirst(overlap))
            } else if reverseOverlap > overlap && Self.isSubstantial(reverseOverlap, deletion, insertion) {
                // <del>xxxabc</del><ins>defxxx</ins> → <ins>def</ins>xxx<del>abc</del>
                result.appendUnlessEmpty(.insert, insertion.dropLast(reverseOverlap))
                result.append(TextEdit(.equal, scalars: deletion.prefix(reverseOverlap)))
                result.appendUnlessEmpty(.delete, deletion.dropFirst(reverseOverlap))
            } else {
                result += [self[index], self[index + 1]]
            }
            index += 2
        }
        self = result
    }

    /// Replaces each equality marked in `replaced` by a deletion and an insertion of its text,
    /// then merges the runs this creates.
    mutating func replaceEqualities(where replaced: [Bool]) {
        guard replaced.contains(true) else { return }
        self = indices.flatMap { index in
            replaced[index]
                ? [TextEdit(.delete, scalars: self[index].scalars), TextEdit(.insert, scalars: self[index].scalars)]
                : [self[index]]
        }
        mergeAdjacentEdits()
    }

    /// Whether an overlap is at least half as long as the deletion or the insertion.
    private static func isSubstantial(_ overlap: Int, _ deletion: [UInt32], _ insertion: [UInt32]) -> Bool {
        overlap * 2 >= deletion.count || overlap * 2 >= insertion.count
    }

    private mutating func appendUnlessEmpty(_ operation: TextEdit.Operation, _ scalars: ArraySlice<UInt32>) {
        if !scalars.isEmpty {
            append(TextEdit(operation, scalars: scalars))
        }
    }
}
