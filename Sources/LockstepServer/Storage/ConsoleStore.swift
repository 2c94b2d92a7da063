/// What the console reads that no client needs: every user, every bucket and owner, objects by
/// key prefix, the presence claims and the store's nodes. Admin-only (``AdminRoutes``), and
/// kept apart from ``SyncStore``'s sync path: none of these is on a hot path, so they favour a
/// plain query over an index of their own.
public protocol ConsoleStore: Sendable {
    /// Up to `limit` users of an app whose canonical name begins with `prefix`'s, in order of
    /// canonical name, after `after` (a canonical name from an earlier page).
    func consoleUsers(appID: String, prefix: String, after: String?, limit: Int) async throws -> [ConsoleUser]
    /// Every (owner, bucket) of an app that holds or held objects, with its live object count.
    func consoleBuckets(appID: String) async throws -> [ConsoleBucket]
    /// Up to `limit` objects of a bucket whose key begins with `prefix`, in key order (bytewise),
    /// after `after`; removed objects included (they are tombstones, and say so).
    func consoleObjects(_ scope: BucketScope, prefix: String, after: String?, limit: Int) async throws -> [ConsoleObject]
    /// Every presence claim recorded for an app, by any node.
    func presenceClaims(appID: String) async throws -> [PresenceClaim]
    /// The store's kind, its nodes and the app's counters.
    func consoleSummary(appID: String) async throws -> ConsoleStoreSummary
}

public struct ConsoleUser: Sendable, Equatable {
    public var id: String
    public var username: String
    /// For paging: what ``ConsoleStore/consoleUsers(appID:prefix:after:limit:)`` takes as `after`.
    public var canonicalUsername: String
    public var createdAt: Int64
    public var hasPassword: Bool
    /// Tokens not revoked (expired ones included until the upkeep deletes them).
    public var tokens: Int

    public init(id: String, username: String, canonicalUsername: String, createdAt: Int64, hasPassword: Bool, tokens: Int) {
        self.id = id
        self.username = username
        self.canonicalUsername = canonicalUsername
        self.createdAt = createdAt
        self.hasPassword = hasPassword
        self.tokens = tokens
    }
}

public struct ConsoleBucket: Sendable, Equatable {
    /// As stored: a user id, `""` for a shared bucket, `space:<id>` for a space's.
    public var ownerKey: String
    public var name: String
    /// Live objects (tombstones not counted).
    public var objects: Int
    /// The bucket's change sequence: how many changes it has taken.
    public var lastSequence: Int64

    public init(ownerKey: String, name: String, objects: Int, lastSequence: Int64) {
        self.ownerKey = ownerKey
        self.name = name
        self.objects = objects
        self.lastSequence = lastSequence
    }
}

public struct ConsoleObject: Sendable, Equatable {
    public var key: String
    public var version: Int
    public var isDeleted: Bool

    public init(key: String, version: Int, isDeleted: Bool) {
        self.key = key
        self.version = version
        self.isDeleted = isDeleted
    }
}

public struct ConsoleStoreSummary: Sendable, Equatable {
    /// `SQLite` or `PostgreSQL`.
    public var kind: String
    /// The server nodes on the store now: this one for SQLite; every node whose change relay
    /// listens, for PostgreSQL.
    public var nodes: [String]
    public var users: Int
    /// The app's change sequence: every change to any of its buckets counts one, on any node.
    public var changes: Int64

    public init(kind: String, nodes: [String], users: Int, changes: Int64) {
        self.kind = kind
        self.nodes = nodes
        self.users = users
        self.changes = changes
    }
}
