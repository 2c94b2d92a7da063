extension [TextPatch] {
    /// Splits every hunk whose source is longer than a fuzzy-match pattern can be into
    /// several, each with its own context (diff-match-patch's `patch_splitMax`). A deletion of
    /// more than twice that length stays in one piece; applying it matches its two ends.
    mutating func splitToMaxPatternLength() {
        let maxLength = FuzzyMatcher.maxPatternLength
        guard contains(where: { $0.sourceLength > maxLength }) else { return }
        self = flatMap { $0.sourceLength > maxLength ? $0.split(maxLength: maxLength) : [$0] }
    }
}

extension TextPatch {
    /// Cuts the hunk into hunks of at most `maxLength` source scalars (one large deletion aside).
    fileprivate func split(maxLength: Int) -> [TextPatch] {
        let margin = Self.contextMargin
        var pieces: [TextPatch] = []
        // The unsplit rest of the hunk: edits[next...], less `taken` scalars of edits[next].
        var next = 0
        var taken = 0
        var sourceStart = sourceStart
        var targetStart = targetStart
        var precontext: ArraySlice<UInt32> = []

        while next < edits.count {
            var piece = TextPatch()
            var changes = false
            piece.sourceStart = sourceStart - precontext.count
            piece.targetStart = targetStart - precontext.count
            if !precontext.isEmpty {
                piece.sourceLength = precontext.count
                piece.targetLength = precontext.count
                piece.edits.append(TextEdit(.equal, scalars: precontext))
            }
            while next < edits.count && piece.sourceLength < maxLength - margin {
                let operation = edits[next].operation
                let text = edits[next].scalars[taken...]
                if operation == .insert {
                    // Insertions cost nothing to match.
                    piece.targetLength += text.count
                    targetStart += text.count
                    piece.edits.append(TextEdit(.insert, scalars: text))
                    changes = true
                    next += 1
                    taken = 0
                } else if operation == .delete && piece.edits.count == 1 && piece.edits[0].operation == .equal
                            && text.count > 2 * maxLength {
                    // A large deletion goes whole into a piece of its own.
                    piece.sourceLength += text.count
                    sourceStart += text.count
                    piece.edits.append(TextEdit(.delete, scalars: text))
                    changes = true
                    next += 1
                    taken = 0
                } else {
                    // A deletion or an equality: take as much as fits.
                    let chunk = text.prefix(maxLength - piece.sourceLength - margin)
                    piece.sourceLength += chunk.count
                    sourceStart += chunk.count
                    if operation == .equal {
                        piece.targetLength += chunk.count
                        targetStart += chunk.count
                    } else {
                        changes = true
                    }
                    piece.edits.append(TextEdit(operation, scalars: chunk))
                    taken += chunk.count
                    if taken == edits[next].scalars.count {
                        next += 1
                        taken = 0
                    }
                }
            }
            // The end of this piece's target is the next piece's leading context...
            precontext = piece.edits.targetScalars.suffix(margin)
            // ...and the start of what remains of the source is this piece's trailing context.
            let postcontext = sourcePrefix(margin, from: next, skipping: taken)
            if !postcontext.isEmpty {
                piece.sourceLength += postcontext.count
                piece.targetLength += postcontext.count
                if let last = piece.edits.indices.last, piece.edits[last].operation == .equal {
                    piece.edits[last].scalars += postcontext
                } else {
                    piece.edits.append(TextEdit(.equal, scalars: postcontext))
                }
            }
            if changes {
                pieces.append(piece)
            }
        }
        return pieces
    }

    /// The first `length` source scalars of `edits[start...]`, less `skipped` scalars of the first.
    private func sourcePrefix(_ length: Int, from start: Int, skipping skipped: Int) -> [UInt32] {
        var prefix: [UInt32] = []
        for (index, edit) in edits[start...].enumerated() where edit.operation != .insert {
            prefix += edit.scalars[(index == 0 ? skipped : 0)...].prefix(length - prefix.count)
            if prefix.count == length { break }
        }
        return prefix
    }
}
