/// One run of a diff: text that both sides share, or text that only one side has.
///
/// A diff is a list of edits that, read in order, spells out both texts at once: the source
/// is every `equal` and `delete` run, the target every `equal` and `insert` run.
///
/// ```swift
/// // "Hello world" → "Hello kansas"
/// [.equal("Hello "), .delete("world"), .insert("kansas")]
/// ```
public struct TextEdit: Hashable, Sendable {
    /// What a run of text does when turning the source into the target.
    public enum Operation: Hashable, Sendable {
        /// Kept: the text is in both the source and the target.
        case equal
        /// Added: the text is only in the target.
        case insert
        /// Removed: the text is only in the source.
        case delete
    }

    /// What this edit does with its text.
    public var operation: Operation

    /// The text as Unicode scalar values.
    ///
    /// The algorithms work on scalars, not UTF-16 code units, so that no edit can ever end
    /// between the two halves of a surrogate pair; and not on `Character`s, so that indexing
    /// is O(1). Only the delta format counts in UTF-16 code units.
    var scalars: [UInt32]

    /// Creates an edit that keeps, inserts or deletes `text`.
    public init(_ operation: Operation, _ text: String) {
        self.init(operation, scalars: text.scalarValues)
    }

    init(_ operation: Operation, scalars: some Sequence<UInt32>) {
        self.operation = operation
        self.scalars = Array(scalars)
    }

    /// The text this edit keeps, inserts or deletes.
    public var text: String {
        get { String(scalarValues: scalars) }
        set { scalars = newValue.scalarValues }
    }

    /// The length of the text in UTF-16 code units: the unit of the counts in a delta.
    public var utf16Count: Int { scalars.utf16Count }

    /// An edit that keeps `text`.
    public static func equal(_ text: String) -> TextEdit { TextEdit(.equal, text) }

    /// An edit that inserts `text`.
    public static func insert(_ text: String) -> TextEdit { TextEdit(.insert, text) }

    /// An edit that deletes `text`.
    public static func delete(_ text: String) -> TextEdit { TextEdit(.delete, text) }
}

extension TextEdit: CustomStringConvertible {
    /// The operation as `=`, `+` or `-`, then the text as a quoted Swift literal: `+"kansas"`.
    public var description: String {
        let sign = switch operation {
        case .equal: "="
        case .insert: "+"
        case .delete: "-"
        }
        return sign + text.debugDescription
    }
}
