import LockstepCore

/// Apps, users and tokens: who may do what.
public struct AccountService: Sendable {
    public let store: any SyncStore
    let hasher: PasswordHasher
    let tokenLifetimeNanoseconds: Int64
    let now: @Sendable () -> Int64
    let passwordAttempts: RateLimiter

    public init(store: any SyncStore, limits: Limits, now: @escaping @Sendable () -> Int64) {
        self.store = store
        self.hasher = PasswordHasher(cost: limits.passwordHashCost)
        self.tokenLifetimeNanoseconds = Int64(limits.tokenLifetimeSeconds * 1e9)
        self.now = now
        self.passwordAttempts = RateLimiter(ratePerSecond: limits.passwordAttemptsPerMinute / 60, burst: limits.passwordAttemptsPerMinute * 2)
    }

    /// The secrets of a new app, shown once: only their hashes are stored.
    public struct AppCredentials: Sendable, Equatable {
        public var appID: String
        public var name: String
        public var apiKey: String
        public var adminToken: String
    }

    /// What a token (or the admin token acting as a user) grants.
    public struct Identity: Sendable, Equatable {
        public var appID: String
        /// The user the request acts for; `nil` for the admin token acting as itself.
        public var userID: String?
        public var username: String?
        public var isAdmin: Bool
    }

    /// A user's token, as `create/` and `authorize/` return it.
    public struct Grant: Sendable, Equatable {
        public var username: String
        public var userID: String
        public var accessToken: String
    }

    public func createApp(name: String) async throws -> AppCredentials {
        let slug = String(name.lowercased().unicodeScalars.map { scalar -> Character in
            (scalar.properties.isAlphabetic && scalar.isASCII) || ("0"..."9").contains(scalar) ? Character(scalar) : "-"
        }.prefix(24))
        let appID = (slug.isEmpty ? "app" : slug) + "-" + Secrets.randomHex(byteCount: 3)
        let credentials = AppCredentials(
            appID: appID, name: name, apiKey: Secrets.randomHex(), adminToken: Secrets.randomHex())
        try await store.insertApp(AppRecord(
            id: appID, name: name, apiKeyHash: Secrets.hash(credentials.apiKey),
            adminTokenHash: Secrets.hash(credentials.adminToken), createdAt: now()))
        return credentials
    }

    /// `create/`: a new user with a password, and their first token.
    public func createUser(appID: String, apiKey: String?, username: String, password: String) async throws -> Grant {
        try await requireAPIKey(apiKey, appID: appID)
        try Self.validate(username: username)
        guard !password.isEmpty, password.utf8.count <= 1024 else {
            throw AccountError(.badRequest, "a password must be 1 to 1024 bytes")
        }
        let user = UserRecord(
            appID: appID, id: Secrets.randomHex(), username: username, passwordHash: try hasher.hash(password), createdAt: now())
        do {
            try await store.insertUser(user)
        } catch StoreError.duplicate {
            throw AccountError(.conflict, "the username \(username) is taken")
        }
        return try await issueToken(for: user)
    }

    /// `authorize/`: a new token for a user who proves their password.
    public func authorize(appID: String, apiKey: String?, username: String, password: String) async throws -> Grant {
        try await requireAPIKey(apiKey, appID: appID)
        guard passwordAttempts.allow(appID + "/" + username) else {
            throw AccountError(.tooManyRequests, "too many password attempts for \(username); wait a minute")
        }
        guard let user = try await store.user(appID: appID, username: username), let stored = user.passwordHash,
            hasher.verify(password, against: stored)
        else { throw AccountError(.unauthorized, "the username or password is wrong") }
        return try await issueToken(for: user)
    }

    /// A token for a user without a password, creating the user if needed: what an admin (or
    /// `lockstep tokens create`) hands out, like the pre-generated tokens of Simperium's tutorials.
    public func issueToken(appID: String, username: String) async throws -> Grant {
        guard try await store.app(id: appID) != nil else { throw AccountError(.notFound, "there is no app \(appID)") }
        try Self.validate(username: username)
        if let user = try await store.user(appID: appID, username: username) {
            return try await issueToken(for: user)
        }
        let user = UserRecord(appID: appID, id: Secrets.randomHex(), username: username, passwordHash: nil, createdAt: now())
        do {
            try await store.insertUser(user)
            return try await issueToken(for: user)
        } catch StoreError.duplicate {
            return try await issueToken(appID: appID, username: username)
        }
    }

    /// Who a token belongs to. The app's admin token is accepted too, acting for the user
    /// named by `actingUserID` (`X-Simperium-User`) when given.
    public func authenticate(appID: String, token: String?, actingUserID: String? = nil) async throws -> Identity {
        guard let token, !token.isEmpty else { throw AccountError(.unauthorized, "send an access token in X-Simperium-Token") }
        guard let app = try await store.app(id: appID) else { throw AccountError(.notFound, "there is no app \(appID)") }
        let hash = Secrets.hash(token)
        if hash == app.adminTokenHash {
            guard let actingUserID else { return Identity(appID: appID, userID: nil, username: nil, isAdmin: true) }
            guard let user = try await store.user(appID: appID, id: actingUserID) else {
                throw AccountError(.notFound, "there is no user \(actingUserID) in app \(appID)")
            }
            return Identity(appID: appID, userID: user.id, username: user.username, isAdmin: true)
        }
        guard let record = try await store.token(hash: hash), record.appID == appID else {
            throw AccountError(.unauthorized, "the token is not valid for app \(appID)")
        }
        if let expiresAt = record.expiresAt, expiresAt <= now() {
            throw AccountError(.unauthorized, "the token has expired; authorize again")
        }
        let user = try await store.user(appID: appID, id: record.userID)
        return Identity(appID: appID, userID: record.userID, username: user?.username, isAdmin: false)
    }

    private func issueToken(for user: UserRecord) async throws -> Grant {
        let token = Secrets.randomHex()
        let issued = now()
        try await store.insertToken(TokenRecord(
            tokenHash: Secrets.hash(token), appID: user.appID, userID: user.id, createdAt: issued,
            expiresAt: tokenLifetimeNanoseconds > 0 ? issued + tokenLifetimeNanoseconds : nil))
        return Grant(username: user.username, userID: user.id, accessToken: token)
    }

    private func requireAPIKey(_ apiKey: String?, appID: String) async throws {
        guard let app = try await store.app(id: appID) else { throw AccountError(.notFound, "there is no app \(appID)") }
        guard let apiKey, Secrets.hash(apiKey) == app.apiKeyHash else {
            throw AccountError(.unauthorized, "send the app's API key in X-Simperium-API-Key")
        }
    }

    /// Usernames are shown to streaming clients after `auth:`, where Simperium clients take
    /// anything that parses as JSON for an error, so such names are refused up front.
    static func validate(username: String) throws {
        guard !username.isEmpty, username.utf8.count <= 256, !username.contains(where: \.isNewline) else {
            throw AccountError(.badRequest, "a username must be 1 to 256 characters on one line")
        }
        if (try? JSONValue(parsing: username)) != nil {
            throw AccountError(.badRequest, "a username may not be a JSON value such as a number or true")
        }
    }
}

/// Why an account request failed, with its HTTP status.
public struct AccountError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Status: Int, Sendable {
        case badRequest = 400
        case unauthorized = 401
        case forbidden = 403
        case notFound = 404
        case conflict = 409
        case tooManyRequests = 429
    }

    public var status: Status
    public var message: String

    public init(_ status: Status, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }
}
