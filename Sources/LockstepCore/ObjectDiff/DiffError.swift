/// Why a diff cannot be read, applied or transformed, and where in the object.
///
/// A failed apply or transform changes nothing: diffs work on values, so the object the diff was
/// applied to is exactly as it was.
public struct DiffError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The diff is not shaped like a jsondiff: not an object, no `o`, a missing `v`.
        case malformed
        /// The `o` names no operation Lockstep knows.
        case unknownOperation
        /// The operation does not fit the value it meets: `d` on a number, `O` on a list.
        case wrongType
        /// A list operation addresses an index past the end of the list.
        case indexOutOfRange
        /// A `d` or `dL` delta does not fit its text.
        case badTextDelta
        /// An `I` would overflow a 64-bit integer.
        case numberOverflow
    }

    public var kind: Kind
    /// Where the problem is: member names and list indices from the top of the object.
    public var path: DiffPath
    /// What was wrong, in words.
    public var message: String

    public init(_ kind: Kind, at path: DiffPath, _ message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var description: String {
        path.isEmpty ? message : "at \(path): \(message)"
    }
}

/// A place inside a JSON value, written like `title`, `tags[2]` or `meta.author`.
public struct DiffPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case member(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    public var isEmpty: Bool { components.isEmpty }

    public func appending(member name: String) -> DiffPath {
        DiffPath(components + [.member(name)])
    }

    public func appending(index: Int) -> DiffPath {
        DiffPath(components + [.index(index)])
    }

    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .member(let name) where Self.isPlainName(name):
                text += text.isEmpty ? name : "." + name
            case .member(let name):
                text += "[" + JSONValue.string(name).description + "]"
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    private static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}
