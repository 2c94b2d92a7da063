/// One bucket as one owner sees it: the unit of storage, change versions and fan-out.
///
/// Every read and write names a scope, and a scope names its owner, so one user's request
/// can never reach another user's objects. A shared bucket has one scope for the whole app;
/// a space's bucket has one scope for the space's members (see ``SpaceBucketName``).
public struct BucketScope: Sendable, Hashable, CustomStringConvertible {
    public enum Owner: Sendable, Hashable {
        /// The bucket belongs to this user id alone.
        case user(String)
        /// Every user of the app reads and writes the same bucket.
        case shared
        /// The bucket belongs to the space with this id (not its name: a space deleted and
        /// made again under the same name starts empty).
        case space(String)

        /// The owner as stored (see ``BucketScope/ownerKey``).
        public var key: String {
            switch self {
            case .user(let id): id
            case .shared: ""
            case .space(let id): BucketScope.spacePrefix + id
            }
        }
    }

    public let appID: String
    public let owner: Owner
    public let bucket: String
    /// The names hashed once, with this process's seed: a scope is a dictionary key many times
    /// over for each change (a group's reads and plan, the lanes, the hub), and hashing the
    /// names each time (an app id alone is 20 bytes) cost more than the rest of the lookup.
    private let hashCode: Int

    public init(appID: String, owner: Owner, bucket: String) {
        self.appID = appID
        self.owner = owner
        self.bucket = bucket
        var hasher = Hasher()
        hasher.combine(appID)
        hasher.combine(owner)
        hasher.combine(bucket)
        hashCode = hasher.finalize()
    }

    public static func == (lhs: BucketScope, rhs: BucketScope) -> Bool {
        lhs.hashCode == rhs.hashCode && lhs.bucket == rhs.bucket && lhs.owner == rhs.owner && lhs.appID == rhs.appID
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hashCode)
    }

    /// The owner as stored: the user id, the empty string for a shared bucket, or `space:`
    /// and the space's id. User ids are hexadecimal, so no user's key begins with `space:`.
    public var ownerKey: String { owner.key }

    public init(appID: String, ownerKey: String, bucket: String) {
        let owner: Owner =
            if ownerKey.isEmpty { .shared }
            else if ownerKey.hasPrefix(Self.spacePrefix) { .space(String(ownerKey.dropFirst(Self.spacePrefix.count))) }
            else { .user(ownerKey) }
        self.init(appID: appID, owner: owner, bucket: bucket)
    }

    /// What begins the stored owner of a space's bucket.
    static let spacePrefix = "space:"

    public var description: String { "\(appID)/\(ownerKey.isEmpty ? "*" : ownerKey)/\(bucket)" }
}
