@testable import LockstepCore

/// Shorthands for the classic diff-match-patch test vectors.
extension [TextEdit] {
    var merged: [TextEdit] {
        var edits = self
        edits.mergeAdjacentEdits()
        return edits
    }
}

extension String {
    /// The scalar values, for comparisons stricter than `==`, which treats "é" and "e\u{301}"
    /// as equal.
    var scalars: [UInt32] { scalarValues }
}

/// Diffs with the engine directly, choosing line mode and the timeout.
func engineDiff(_ old: String, _ new: String, lineMode: Bool = false, timeout: Duration? = nil) -> [TextEdit] {
    TextDiffEngine(timeout: timeout).edits(from: old.scalarValues, to: new.scalarValues, lineMode: lineMode)
}
