/// An object's reference to a blob: a member whose value is
/// `{"$blob": "sha256:<hex>", "size": 1234, "type": "image/jpeg"}`, at any depth.
///
/// To a client that knows nothing of blobs (an unmodified Simperium client) a reference is plain
/// JSON; the server reads references to decide who may download a blob and which blobs are
/// still needed, and refuses a change that would add a reference to a blob its writer has not
/// uploaded in full.
public struct BlobReference: Sendable, Hashable {
    public var hash: BlobHash
    /// The blob's length in bytes, as the writer gave it.
    public var size: Int64?
    /// The blob's media type, as the writer gave it.
    public var type: String?

    public init(hash: BlobHash, size: Int64?, type: String?) {
        self.hash = hash
        self.size = size
        self.type = type
    }

    /// The reference a JSON value holds, if it is one: an object whose `$blob` member is a hash.
    public init?(_ value: JSONValue) {
        guard case .object(let members) = value, case .string(let text)? = members[Self.marker], let hash = BlobHash(text) else {
            return nil
        }
        self.init(hash: hash, size: members["size"]?.integerValue, type: members["type"]?.stringValue)
    }

    /// The reference as a member's value.
    public var json: JSONValue {
        var members: JSONObject = [Self.marker: .string(hash.description)]
        if let size { members["size"] = .integer(size) }
        if let type { members["type"] = .string(type) }
        return .object(members)
    }

    /// The hashes of every blob `object` refers to, at any depth.
    public static func hashes(in object: JSONObject) -> Set<BlobHash> {
        var found = Set<BlobHash>()
        for value in object.values { collect(value, into: &found) }
        return found
    }

    private static func collect(_ value: JSONValue, into found: inout Set<BlobHash>) {
        switch value {
        case .object(let members):
            if let reference = BlobReference(value) { found.insert(reference.hash) }
            for member in members.values { collect(member, into: &found) }
        case .array(let elements):
            for element in elements { collect(element, into: &found) }
        case .null, .bool, .integer, .number, .string:
            break
        }
    }

    /// The member that marks a reference.
    public static let marker = "$blob"
}
