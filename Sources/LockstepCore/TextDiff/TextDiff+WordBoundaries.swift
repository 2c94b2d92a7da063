extension TextDiff {
    /// Slides each change that sits alone between two equalities sideways to the place where
    /// its ends fall best for a reader (diff-match-patch's `cleanupSemanticLossless`):
    /// `The c<ins>at c</ins>ame` becomes `The <ins>cat </ins>came`.
    ///
    /// Preferred boundaries, best first: the edge of the text, blank lines, line breaks, the
    /// end of a sentence, whitespace, punctuation. A boundary inside a word is poor, and one
    /// inside a user-perceived character (before a combining mark or around a zero-width
    /// joiner) is worst. The source and target stay the same, and so does the number of edits,
    /// unless an equality shrinks to nothing.
    public mutating func alignToWordBoundaries() {
        edits.alignToWordBoundaries()
    }
}

extension [TextEdit] {
    /// See ``TextDiff/alignToWordBoundaries()``.
    mutating func alignToWordBoundaries() {
        var aligned: [TextEdit] = []
        aligned.reserveCapacity(count)
        var index = 0
        while index < count {
            let change = self[index]
            guard change.operation != .equal, index + 1 < count, self[index + 1].operation == .equal,
                  let before = aligned.last, before.operation == .equal else {
                aligned.append(change)
                index += 1
                continue
            }

            // All three runs as one text; sliding the change moves a window of fixed length.
            let joined = before.scalars + change.scalars + self[index + 1].scalars
            let length = change.scalars.count
            // First slide as far left as the texts allow...
            var start = before.scalars.count - before.scalars.commonSuffixLength(with: change.scalars)
            var bestStart = start
            var bestScore = Self.boundaryScore(joined, start, length)
            // ...then step right one scalar at a time while the change still fits.
            while start + length < joined.count && joined[start] == joined[start + length] {
                start += 1
                let score = Self.boundaryScore(joined, start, length)
                // On a tie, prefer the later place: edits that end with whitespace read better.
                if score >= bestScore {
                    bestScore = score
                    bestStart = start
                }
            }

            aligned.removeLast()
            if bestStart > 0 {
                aligned.append(TextEdit(.equal, scalars: joined[..<bestStart]))
            }
            aligned.append(TextEdit(change.operation, scalars: joined[bestStart ..< bestStart + length]))
            if bestStart + length < joined.count {
                self[index + 1].scalars = [UInt32](joined[(bestStart + length)...])
                index += 1
            } else {
                // The equality after the change is gone.
                index += 2
            }
        }
        self = aligned
    }

    /// How good a change at `start ..< start + length` of `text` is: the sum of the scores of
    /// its two ends.
    private static func boundaryScore(_ text: [UInt32], _ start: Int, _ length: Int) -> Int {
        let end = start + length
        return boundaryScore(text[..<start], text[start ..< end]) + boundaryScore(text[start ..< end], text[end...])
    }

    /// How good a place the boundary between two texts is for a change to start or end, from 6
    /// (the edge of the whole text) down to 0 (inside a word) and −1 (inside a character as the
    /// reader sees it).
    static func boundaryScore(_ before: ArraySlice<UInt32>, _ after: ArraySlice<UInt32>) -> Int {
        guard let last = before.last, let first = after.first else { return 6 }
        let lastKind = ScalarKind(last)
        let firstKind = ScalarKind(first)
        let endsWithBlankLine = before.hasSuffix(newlineNewline) || before.hasSuffix(newlineReturnNewline)
        if endsWithBlankLine || startsWithBlankLine(after) {
            return 5
        }
        if lastKind == .lineBreak || firstKind == .lineBreak {
            return 4
        }
        if lastKind == .punctuation && firstKind == .whitespace {
            return 3  // The end of a sentence.
        }
        if lastKind == .whitespace || firstKind == .whitespace {
            return 2
        }
        if firstKind == .joining || firstKind == .joiner || lastKind == .joiner {
            return -1
        }
        if lastKind == .punctuation || firstKind == .punctuation {
            return 1
        }
        return 0
    }

    private static let newlineNewline: [UInt32] = [0x0A, 0x0A]
    private static let newlineReturnNewline: [UInt32] = [0x0A, 0x0D, 0x0A]

    /// Whether the text starts with a blank line: two line breaks, each `\n` or `\r\n`.
    private static func startsWithBlankLine(_ text: ArraySlice<UInt32>) -> Bool {
        var rest = text[...]
        for _ in 0 ..< 2 {
            if rest.first == 0x0D { rest = rest.dropFirst() }
            guard rest.first == 0x0A else { return false }
            rest = rest.dropFirst()
        }
        return true
    }
}

/// What a scalar means for the placement of an edit boundary next to it.
private enum ScalarKind {
    /// Letters, digits and combining marks: the inside of a word.
    case word
    /// Whitespace that is not a line break.
    case whitespace
    /// `\r` or `\n`.
    case lineBreak
    /// A scalar that attaches to the one before it: a combining mark, a variation selector
    /// or an emoji modifier.
    case joining
    /// The zero-width joiner, which attaches to the scalar before it and the one after it.
    case joiner
    /// Everything else: punctuation, symbols, emoji.
    case punctuation

    init(_ value: UInt32) {
        guard let scalar = Unicode.Scalar(value) else {
            self = .punctuation
            return
        }
        let properties = scalar.properties
        switch scalar {
        case "\r", "\n":
            self = .lineBreak
        case "\u{200D}":
            self = .joiner
        default:
            if properties.isWhitespace {
                self = .whitespace
            } else if properties.isVariationSelector || properties.isEmojiModifier
                        || [.nonspacingMark, .spacingMark, .enclosingMark].contains(properties.generalCategory) {
                self = .joining
            } else if properties.isAlphabetic || properties.numericType != nil {
                self = .word
            } else {
                self = .punctuation
            }
        }
    }
}
