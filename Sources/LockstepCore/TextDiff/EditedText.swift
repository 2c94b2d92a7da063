/// A text that deltas are applied to one after another, edited in place.
///
/// Applying a delta by reading it into edits and joining them builds the whole new text, and
/// converts it from and to a `String`; a rebase over a thousand small edits of a 4 KB note did
/// that a thousand times. Here each token moves only the text after it, and the UTF-16 length the next
/// delta is checked against is carried along instead of counted again.
struct EditedText {
    private(set) var scalars: [UInt32]
    /// The text's length in UTF-16 code units, which delta counts are in.
    private var utf16Length: Int
    /// How many scalars take two UTF-16 code units; while there are none, a count of code
    /// units is a count of scalars.
    private var pairCount: Int

    init(_ text: String) {
        scalars = text.scalarValues
        pairCount = scalars.reduce(0) { $0 + ($1 > 0xFFFF ? 1 : 0) }
        utf16Length = scalars.count + pairCount
    }

    var text: String { String(scalarValues: scalars) }

    /// Applies a delta made from the text as it is now. On a throw the text may be left part
    /// edited: discard it.
    mutating func apply(_ delta: String) throws(TextDeltaError) {
        let tokens = try DeltaToken.parse(delta)
        // Saturating, so that absurd counts report a mismatch instead of overflowing.
        let deltaLength = tokens.reduce(0) { total, token in
            let (sum, overflow) = total.addingReportingOverflow(token.count)
            return overflow ? Int.max : sum
        }
        guard deltaLength == utf16Length else {
            throw TextDeltaError(.lengthMismatch(deltaLength: deltaLength, sourceLength: utf16Length))
        }
        var index = 0
        var utf16Offset = 0
        for token in tokens {
            switch token {
            case .insert(let inserted):
                scalars.insert(contentsOf: inserted, at: index)
                index += inserted.count
                let pairs = inserted.reduce(0) { $0 + ($1 > 0xFFFF ? 1 : 0) }
                pairCount += pairs
                utf16Length += inserted.count + pairs
            case .keep(let count):
                index = try self.index(after: count, from: index, at: utf16Offset)
                utf16Offset += count
            case .delete(let count):
                let end = try self.index(after: count, from: index, at: utf16Offset)
                if pairCount > 0 {
                    pairCount -= scalars[index..<end].reduce(0) { $0 + ($1 > 0xFFFF ? 1 : 0) }
                }
                scalars.removeSubrange(index..<end)
                utf16Length -= count
                utf16Offset += count
            }
        }
    }

    /// The scalar index `count` UTF-16 code units after `index`.
    private func index(after count: Int, from index: Int, at utf16Offset: Int) throws(TextDeltaError) -> Int {
        // Counts add up to the text's length, so the text cannot run out here.
        pairCount > 0 ? try scalars.index(advancingUTF16: count, from: index, at: utf16Offset) : index + count
    }
}
