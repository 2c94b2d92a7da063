extension TextDiffEngine {
    /// Diffs long texts line by line, then refines each changed block scalar by scalar.
    ///
    /// Much faster than a scalar diff on texts with many lines, at the price of a diff that may
    /// be a little longer than the shortest.
    func lineModeEdits(from old: [UInt32], to new: [UInt32]) -> [TextEdit] {
        // A text of one line could only share it with the other text by being contained in
        // it, which the caller has ruled out; so lines are no help, and hashing a long line is
        // not free.
        guard old.dropLast().contains(0x0A) && new.dropLast().contains(0x0A) else {
            return bisect(old, new)
        }
        var tokenizer = LineTokenizer()
        let oldLines = tokenizer.tokens(of: old)
        let newLines = tokenizer.tokens(of: new)
        let tokenEdits = edits(from: oldLines, to: newLines, lineMode: false)
        guard tokenEdits.contains(where: { $0.operation == .equal }) else {
            // Not one line in common (a single long line, say): lines are no help.
            return bisect(old, new)
        }
        var lineEdits = tokenEdits.map { edit in
            TextEdit(edit.operation, scalars: tokenizer.text(of: edit.scalars))
        }
        // Merges lines that happen to be equal inside changed blocks ("}", blank lines) into
        // the blocks, so that the scalar diff below sees whole blocks.
        lineEdits.cleanUpSemantically()

        var refined: [TextEdit] = []
        refined.reserveCapacity(lineEdits.count)
        var block: [TextEdit] = []
        var deleted: [UInt32] = []
        var inserted: [UInt32] = []
        func refineBlock() {
            if deleted.isEmpty || inserted.isEmpty {
                refined += block
            } else {
                refined += edits(from: deleted, to: inserted, lineMode: false)
            }
            block = []
            deleted = []
            inserted = []
        }
        for edit in lineEdits {
            switch edit.operation {
            case .equal:
                refineBlock()
                refined.append(edit)
            case .delete:
                block.append(edit)
                deleted += edit.scalars
            case .insert:
                block.append(edit)
                inserted += edit.scalars
            }
        }
        refineBlock()
        return refined
    }
}

/// Numbers the distinct lines of texts, so that a diff over line numbers is a diff over lines.
///
/// Tokens are plain `UInt32` values like scalars, so the same diff engine runs on them; unlike
/// diff-match-patch, which encodes lines as UTF-16 characters, there is no limit on the number
/// of distinct lines.
struct LineTokenizer {
    /// The text of each line, indexed by its token. Every line keeps its final `"\n"`.
    private var lines: [ArraySlice<UInt32>] = []
    private var tokenOfLine: [Line: UInt32] = [:]

    /// A line as a dictionary key, hashed as raw bytes in one call rather than scalar by scalar.
    private struct Line: Hashable {
        let scalars: ArraySlice<UInt32>

        func hash(into hasher: inout Hasher) {
            scalars.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// The tokens of the lines of `text`, numbering new lines as they come.
    mutating func tokens(of text: [UInt32]) -> [UInt32] {
        var tokens: [UInt32] = []
        var lineStart = 0
        while lineStart < text.count {
            let lineEnd = text[lineStart...].firstIndex(of: 0x0A).map { $0 + 1 } ?? text.count
            let line = text[lineStart ..< lineEnd]
            if let token = tokenOfLine[Line(scalars: line)] {
                tokens.append(token)
            } else {
                let token = UInt32(lines.count)
                lines.append(line)
                tokenOfLine[Line(scalars: line)] = token
                tokens.append(token)
            }
            lineStart = lineEnd
        }
        return tokens
    }

    /// The text that a run of tokens stands for.
    func text(of tokens: [UInt32]) -> [UInt32] {
        var text: [UInt32] = []
        for token in tokens {
            text += lines[Int(token)]
        }
        return text
    }
}
