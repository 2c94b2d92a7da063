extension TextDelta {
    /// The delta of an edit that changes one run of text and keeps the rest, written at once:
    /// the shapes typing makes (a run inserted, a run deleted, one character replaced), for
    /// which the diff engine's answer is known without running it. `nil` for any other shape.
    ///
    /// The answer must be the engine's to the byte (both ends of a sync compare deltas, and the
    /// tests compare this with the engine over every small text), so a shape qualifies only
    /// where no later step of the engine would move anything:
    /// - a lone insertion or deletion between two kept runs is slid over one of them when it
    ///   ends with the run before it or starts with the run after it
    ///   (`slideLoneChangesOverEqualities`), and so does not qualify;
    /// - a replaced run qualifies when one side is a single scalar the other does not
    ///   contain: the engine deletes one and inserts the other; longer runs it may align.
    /// The efficiency cleanup changes nothing here: its candidates are kept runs between two
    /// changes, and one run of change has none.
    ///
    /// - Parameters: commonPrefix, commonSuffix: what `old` and `new` share at their start and,
    ///   after it, at their end, in scalars; they differ.
    static func oneRunDelta(from old: [UInt32], to new: [UInt32], commonPrefix prefix: Int, commonSuffix suffix: Int) -> String? {
        // Two runs longer than a scalar each: not a shape written here (found before copying).
        guard old.count - prefix - suffix <= 1 || new.count - prefix - suffix <= 1 else { return nil }
        let kept = (before: old[..<prefix], after: old[(old.count - suffix)...])
        let deleted = Array(old[prefix ..< old.count - suffix])
        let inserted = Array(new[prefix ..< new.count - suffix])

        if deleted.isEmpty || inserted.isEmpty {
            let run = deleted.isEmpty ? inserted : deleted
            if !kept.before.isEmpty && !kept.after.isEmpty && (run.hasSuffix(kept.before) || run.starts(with: kept.after)) {
                return nil
            }
        } else {
            let (shorter, longer) = deleted.count <= inserted.count ? (deleted, inserted) : (inserted, deleted)
            guard shorter.count == 1, !longer.contains(shorter[0]) else { return nil }
        }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + inserted.count)
        func token(_ operation: Character, _ count: Int? = nil) {
            if !bytes.isEmpty { bytes.append(UInt8(ascii: "\t")) }
            bytes.append(operation.asciiValue!)
            if let count { bytes.appendDecimal(Int64(count)) }
        }
        if !kept.before.isEmpty { token("=", kept.before.utf16Count) }
        if !deleted.isEmpty { token("-", deleted.utf16Count) }
        if !inserted.isEmpty {
            token("+")
            DeltaEscaping.escape(inserted, into: &bytes)
        }
        if !kept.after.isEmpty { token("=", kept.after.utf16Count) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
