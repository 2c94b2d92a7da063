extension TextPatch {
    static let largestScalarValue: UInt32 = 0x10FFFF
}

extension [TextPatch] {
    /// Adds context before the first hunk and after the last, so that hunks at the very edges
    /// of a text still have something to be matched by; returns the padding, which the caller
    /// puts around the text (diff-match-patch's `patch_addPadding`).
    ///
    /// The padding values lie above U+10FFFF, so no text can contain them.
    mutating func addPadding() -> [UInt32] {
        let length = TextPatch.contextMargin
        let padding = (1 ... UInt32(length)).map { TextPatch.largestScalarValue + $0 }
        for index in indices {
            self[index].sourceStart += length
            self[index].targetStart += length
        }

        if let first = self[0].edits.first, first.operation == .equal {
            if first.scalars.count < length {
                // Grow the leading context into the padding.
                let extra = length - first.scalars.count
                self[0].edits[0].scalars = padding.suffix(extra) + first.scalars
                self[0].moveStart(by: -extra)
            }
        } else {
            self[0].edits.insert(TextEdit(.equal, scalars: padding), at: 0)
            self[0].moveStart(by: -length)
        }

        let last = count - 1
        if let final = self[last].edits.last, final.operation == .equal {
            if final.scalars.count < length {
                let extra = length - final.scalars.count
                self[last].edits[self[last].edits.count - 1].scalars = final.scalars + padding.prefix(extra)
                self[last].sourceLength += extra
                self[last].targetLength += extra
            }
        } else {
            self[last].edits.append(TextEdit(.equal, scalars: padding))
            self[last].sourceLength += length
            self[last].targetLength += length
        }
        return padding
    }
}

extension TextPatch {
    /// Moves the start of the hunk, keeping its end.
    fileprivate mutating func moveStart(by offset: Int) {
        sourceStart += offset
        targetStart += offset
        sourceLength -= offset
        targetLength -= offset
    }
}
