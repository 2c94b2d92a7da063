public import LockstepCore

/// How the server treats a bucket, as the app's admin set it: read with
/// ``LockstepClient/options(of:)``.
public struct BucketOptions: Sendable, Equatable {
    /// Who keeps a presence bucket's objects alive.
    public enum Presence: String, Sendable {
        /// An object lives while the connection that inserted it is open.
        case client
        /// An object lives while its user has any connection open.
        case user
    }

    /// One bucket for every user of the app, instead of one per user.
    public var isShared: Bool
    /// Only the admin writes; users read.
    public var isReadOnly: Bool
    public var presence: Presence?
    /// The options as the server sent them, including any this client does not know.
    public var json: JSONObject

    public init(json: JSONObject) {
        self.json = json
        isShared = json["shared"]?.boolValue ?? false
        isReadOnly = json["read_only"]?.boolValue ?? false
        presence = json["presence"]?.stringValue.flatMap(Presence.init(rawValue:))
    }
}
