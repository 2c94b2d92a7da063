/// One bucket as one owner sees it: the unit of storage, change versions and fan-out.
///
/// Every read and write names a scope, and a scope names its owner, so one user's request
/// can never reach another user's objects. A shared bucket has one scope for the whole app.
public struct BucketScope: Sendable, Hashable, CustomStringConvertible {
    public enum Owner: Sendable, Hashable {
        /// The bucket belongs to this user id alone.
        case user(String)
        /// Every user of the app reads and writes the same bucket.
        case shared
    }

    public var appID: String
    public var owner: Owner
    public var bucket: String

    public init(appID: String, owner: Owner, bucket: String) {
        self.appID = appID
        self.owner = owner
        self.bucket = bucket
    }

    /// The owner as stored: the user id, or the empty string for a shared bucket.
    public var ownerKey: String {
        switch owner {
        case .user(let id): id
        case .shared: ""
        }
    }

    public init(appID: String, ownerKey: String, bucket: String) {
        self.init(appID: appID, owner: ownerKey.isEmpty ? .shared : .user(ownerKey), bucket: bucket)
    }

    public var description: String { "\(appID)/\(ownerKey.isEmpty ? "*" : ownerKey)/\(bucket)" }
}
