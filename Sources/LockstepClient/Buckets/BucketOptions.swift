public import LockstepCore

/// How the server treats a bucket, as the app's admin set it: read with
/// ``LockstepClient/options(of:)``.
///
/// ```swift
/// let options = try await client.options(of: "player")
/// if options.isShared && options.presence == .client { /* players vanish with their connection */ }
/// ```
///
/// The admin sets them on the server, e.g. `POST /1/{app}/__options__/i/player` with
/// `{"shared":true,"presence":"client"}`; see <doc:PresenceAndTicTacToe>.
public struct BucketOptions: Sendable, Equatable {
    /// Who keeps a presence bucket's objects alive: when that goes away, the server deletes
    /// them, and every client hears the deletions.
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
    /// Whether objects live only while their connection (or user) is connected; `nil` for an
    /// ordinary bucket, whose objects stay until deleted.
    public var presence: Presence?
    /// The options as the server sent them, including any this client does not know.
    public var json: JSONObject

    /// Reads the options from the server's JSON (`shared`, `read_only`, `presence`); members
    /// missing or of the wrong type read as off.
    public init(json: JSONObject) {
        self.json = json
        isShared = json["shared"]?.boolValue ?? false
        isReadOnly = json["read_only"]?.boolValue ?? false
        presence = json["presence"]?.stringValue.flatMap(Presence.init(rawValue:))
    }
}
