/// What a diff does to one member of an object or one element of a list: one `{"o": …, "v": …}`
/// of Simperium's jsondiff format.
///
/// Lockstep writes only ``insert(_:)``, ``remove``, ``replace(_:)``, ``object(_:)`` and ``text(_:)``,
/// the operations every Simperium client can apply, and applies all of them.
public enum DiffOperation: Sendable, Hashable {
    /// `+`: add a member, or insert a list element.
    case insert(JSONValue)
    /// `-`: remove a member or a list element.
    case remove
    /// `r`: replace the value whatever it was.
    case replace(JSONValue)
    /// `I`: add a number to a number.
    case increment(JSONValue)
    /// `O`: change members of a nested object.
    case object(ObjectDiff)
    /// `L`: change elements of a list, addressed by index.
    case list(ListDiff)
    /// `d`: edit a string with a diff-match-patch delta whose lengths count UTF-16 code units.
    case text(String)
    /// `dL`: edit a list through a diff-match-patch delta of its elements written one per line.
    case listText(String)

    /// The operation's code on the wire: `+`, `-`, `r`, `I`, `O`, `L`, `d` or `dL`.
    public var code: String {
        switch self {
        case .insert: "+"
        case .remove: "-"
        case .replace: "r"
        case .increment: "I"
        case .object: "O"
        case .list: "L"
        case .text: "d"
        case .listText: "dL"
        }
    }
}

/// A diff of a JSON object: the operation for each member that changes.
///
/// ```swift
/// let before: JSONObject = ["title": "Hello world", "done": false]
/// let after: JSONObject = ["title": "Hello kansas", "done": true]
/// let diff = ObjectDiff(from: before, to: after)
/// // {"done":{"o":"r","v":true},"title":{"o":"d","v":"=6\t-5\t+kansas"}}
/// try diff.apply(to: before) == after   // true
/// ```
public struct ObjectDiff: Sendable, Hashable {
    public var operations: [String: DiffOperation]

    public init(_ operations: [String: DiffOperation] = [:]) {
        self.operations = operations
    }

    /// Whether the diff changes nothing.
    public var isEmpty: Bool { operations.isEmpty }
}

/// A diff of a JSON array: operations keyed by index, applied in ascending index order.
///
/// Indices follow the jsondiff convention: an index counts the elements removed by earlier
/// operations of the same diff as still present, and insertions as already made. So
/// `{"1": -, "2": -}` removes the second and third elements, and `{"3": +x, "4": +y}` appends
/// `x` then `y` to a three-element list.
public struct ListDiff: Sendable, Hashable {
    public var operations: [Int: DiffOperation]

    public init(_ operations: [Int: DiffOperation] = [:]) {
        self.operations = operations
    }

    public var isEmpty: Bool { operations.isEmpty }
}

extension DiffOperation {
    /// Whether the operation sets the member whatever it was (`+`, `-`, `r`), rather than
    /// editing within it (text, list, nested object) or adding to it (`I`): a write that
    /// concurrent writes of the member collide with whole, which the edit stamps decide.
    public var setsWholeValue: Bool {
        switch self {
        case .insert, .remove, .replace: true
        case .increment, .object, .list, .text, .listText: false
        }
    }
}

extension ObjectDiff {
    /// Whether every client can apply this diff: it uses only `+ - r O d`. Android applies no
    /// `I` or `dL`, iOS only the operations of its member types.
    public var isPortable: Bool {
        operations.values.allSatisfy { operation in
            switch operation {
            case .insert, .remove, .replace, .text: true
            case .object(let nested): nested.isPortable
            case .increment, .list, .listText: false
            }
        }
    }
}
