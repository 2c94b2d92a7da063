public import LockstepCore

/// Per-bucket options, set by the app's admin with `POST /1/{app}/__options__/i/{bucket}`.
public struct BucketOptions: Sendable, Equatable {
    public enum Presence: String, Sendable {
        /// Objects a connection created are removed when that connection goes away.
        case client
        /// Objects a user created are removed when the user's last connection goes away.
        case user
    }

    /// One bucket for every user of the app, instead of one per user.
    public var isShared = false
    /// Users may read; only the admin token writes (a catalog, a leaderboard).
    public var isReadOnly = false
    public var presence: Presence?

    public init(isShared: Bool = false, isReadOnly: Bool = false, presence: Presence? = nil) {
        self.isShared = isShared
        self.isReadOnly = isReadOnly
        self.presence = presence
    }

    /// Reads options from their JSON form, `{"shared": true, "presence": "client", "read_only": true}`.
    public init(json: JSONObject) throws(ChangeRejection) {
        if let shared = json["shared"] {
            guard let flag = shared.boolValue else { throw ChangeRejection(.badRequest, "option shared must be true or false") }
            isShared = flag
        }
        if let readOnly = json["read_only"] {
            guard let flag = readOnly.boolValue else { throw ChangeRejection(.badRequest, "option read_only must be true or false") }
            isReadOnly = flag
        }
        if let presence = json["presence"], !presence.isNull {
            guard let name = presence.stringValue, let value = Presence(rawValue: name) else {
                throw ChangeRejection(.badRequest, "option presence must be \"client\", \"user\" or null")
            }
            self.presence = value
        }
    }
}

extension BucketOptions {
    /// The options of a bucket as the store holds them, defaults when none were set.
    static func read(appID: String, bucket: String, from store: any SyncStore) async throws -> BucketOptions {
        guard let json = try await store.bucketOptions(appID: appID, bucket: bucket) else { return BucketOptions() }
        return try BucketOptions(json: json)
    }
}
