/// An object that exists only while someone is connected: inserted over a streaming connection
/// into a bucket with the `presence` option, and removed when its holder goes away.
///
/// Claims are stored so that a server which dies with connections open can remove their
/// objects when it starts again: each claim names the ``SyncStore/nodeID`` of the server
/// (the run of the process, for SQLite; the node, for PostgreSQL) that holds the connection.
public struct PresenceClaim: Sendable, Hashable {
    /// The server run whose connection made the object.
    public var nodeID: String
    /// Who keeps the object alive: a connection (`client` presence), or a user across all their
    /// connections (`user` presence).
    public var holder: Holder
    public var scope: BucketScope
    public var key: String

    public enum Holder: Sendable, Hashable, CustomStringConvertible {
        case connection(SocketConnectionID)
        case user(String)

        /// The holder as stored: `connection:<n>` or `user:<id>`.
        public var description: String {
            switch self {
            case .connection(let id): "connection:\(id.rawValue)"
            case .user(let id): "user:\(id)"
            }
        }

        public init?(_ text: String) {
            if text.hasPrefix("connection:"), let number = UInt64(text.dropFirst("connection:".count)) {
                self = .connection(SocketConnectionID(rawValue: number))
            } else if text.hasPrefix("user:") {
                self = .user(String(text.dropFirst("user:".count)))
            } else {
                return nil
            }
        }
    }

    public init(nodeID: String, holder: Holder, scope: BucketScope, key: String) {
        self.nodeID = nodeID
        self.holder = holder
        self.scope = scope
        self.key = key
    }
}
