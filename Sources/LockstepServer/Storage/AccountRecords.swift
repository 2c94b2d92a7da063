import Foundation

/// An app: a tenant with its own users, buckets and keys.
public struct AppRecord: Sendable, Equatable {
    public var id: String
    public var name: String
    /// SHA-256 of the API key that clients send to create and authorize users.
    public var apiKeyHash: String
    /// SHA-256 of the admin token, which acts for any user and writes read-only buckets.
    public var adminTokenHash: String
    public var createdAt: Int64

    public init(id: String, name: String, apiKeyHash: String, adminTokenHash: String, createdAt: Int64) {
        self.id = id
        self.name = name
        self.apiKeyHash = apiKeyHash
        self.adminTokenHash = adminTokenHash
        self.createdAt = createdAt
    }
}

/// A user of an app.
public struct UserRecord: Sendable, Equatable {
    public var appID: String
    public var id: String
    public var username: String
    /// The password's hash in PHC-like form (`scrypt$…`); `nil` for users who only ever get
    /// tokens issued by the admin.
    public var passwordHash: String?
    public var createdAt: Int64

    public init(appID: String, id: String, username: String, passwordHash: String?, createdAt: Int64) {
        self.appID = appID
        self.id = id
        self.username = username
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }

    /// The name in the form names are compared in.
    public var canonicalUsername: String { Username.canonical(username) }

    /// Which of the users sharing a canonical name signs in as `username`: the one spelled
    /// exactly so, else the oldest. `users` come from one app, oldest first.
    public static func signingIn(as username: String, among users: [UserRecord]) -> UserRecord? {
        let spelled = username.precomposedStringWithCanonicalMapping
        return users.first { $0.username == username || $0.username == spelled } ?? users.first
    }
}

/// An account whose name has the same canonical form as an older account's of its app.
public struct UsernameCollision: Sendable, Equatable {
    public var appID: String
    public var userID: String
    public var username: String
    /// The older account's name, which owns the canonical form.
    public var collidesWith: String

    public init(appID: String, userID: String, username: String, collidesWith: String) {
        self.appID = appID
        self.userID = userID
        self.username = username
        self.collidesWith = collidesWith
    }
}

/// An access token, stored only as its hash.
public struct TokenRecord: Sendable, Equatable {
    public var tokenHash: String
    public var appID: String
    public var userID: String
    public var createdAt: Int64
    /// Nanoseconds since the Unix epoch after which the token is refused; `nil` never expires.
    public var expiresAt: Int64?

    public init(tokenHash: String, appID: String, userID: String, createdAt: Int64, expiresAt: Int64?) {
        self.tokenHash = tokenHash
        self.appID = appID
        self.userID = userID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
