/// How any client, an unmodified Simperium client included, reaches a bucket of a space: by
/// a bucket name of its own, `__<space>.<bucket>`. `__job-1234.items` is the bucket `items`
/// of the space `job-1234`.
///
/// The rule cannot collide with a user's own buckets: a user's bucket may not begin with `__`
/// (refused since the first release, so no stored bucket does), and every name that begins
/// with `__` and is not of this form is refused too. It cannot be read two ways either: a
/// space's name has no `.`, so the first `.` ends it, and the bucket part is itself a valid
/// name of a user's bucket (so it never begins with `__`: spaces do not nest).
///
/// Both parts use only characters the protocol allows in bucket names (``EntityName``), so
/// the whole is a bucket name every client already accepts, at most 256 characters long.
public struct SpaceBucketName: Sendable, Hashable, CustomStringConvertible {
    /// The space's name (see ``SpaceName``).
    public var space: String
    /// The bucket's name within the space: options set for this name apply to it too.
    public var bucket: String

    public init(space: String, bucket: String) {
        self.space = space
        self.bucket = bucket
    }

    /// Reads a bucket name as a space's bucket; `nil` for any name not of the form
    /// `__<space>.<bucket>` with a valid space name and bucket name.
    public init?(_ name: String) {
        guard name.hasPrefix(Self.prefix), EntityName.isValid(name) else { return nil }
        let rest = name.dropFirst(Self.prefix.count)
        guard let dot = rest.firstIndex(of: Self.separator) else { return nil }
        let space = String(rest[..<dot])
        let bucket = String(rest[rest.index(after: dot)...])
        guard SpaceName.isValid(space), Self.isValidBucket(bucket) else { return nil }
        self.init(space: space, bucket: bucket)
    }

    /// The name clients use: `__<space>.<bucket>`.
    public var description: String { Self.prefix + space + String(Self.separator) + bucket }

    /// Whether `name` may name a user's own (or an app-wide shared) bucket: a valid name that
    /// does not begin with the prefix reserved for spaces and the server's own buckets.
    public static func isValidBucket(_ name: String) -> Bool {
        EntityName.isValid(name) && !name.hasPrefix(prefix)
    }

    /// What begins every space bucket's name (and `__options__`, the server's own).
    public static let prefix = "__"
    /// What ends the space's name.
    public static let separator: Character = "."
}

/// The name of a space: 1 to 64 of `a-z 0-9 _ -`, beginning with a letter or digit.
///
/// Lowercase only, so that two spaces never differ by case alone (clients on case-insensitive
/// file systems keep a folder per bucket); no `.`, which ends the name in a bucket name
/// (``SpaceBucketName``).
public enum SpaceName {
    public static let maximumLength = 64

    public static func isValid(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, bytes.count <= maximumLength, isLetterOrDigit(first) else { return false }
        return bytes.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// Checks `name`, saying what is wrong with it (400).
    public static func validate(_ name: String) throws(ChangeRejection) {
        guard isValid(name) else {
            throw ChangeRejection(
                .badRequest,
                "\"\(name.prefix(80))\" is not a valid space name: use 1 to \(maximumLength) of a-z 0-9 _ -, beginning with a letter or digit")
        }
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
