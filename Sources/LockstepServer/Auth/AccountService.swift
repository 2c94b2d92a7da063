import LockstepCore

/// Apps, users and tokens: who may do what.
public struct AccountService: Sendable {
    public let store: any SyncStore
    /// Hashes and checks passwords, off the cooperative pool.
    let passwords: PasswordWorker
    let tokenLifetimeNanoseconds: Int64
    let now: @Sendable () -> Int64
    /// Password attempts, keyed by app and canonical username.
    let passwordAttempts: RateLimiter
    /// Tokens that authenticated lately: the rate limiter counts requests by these, and by
    /// address for any other token.
    public let verifiedTokens: VerifiedTokens
    /// Told the hashes of tokens revoked here, to close their sockets at once.
    let onRevoked: @Sendable ([String]) -> Void
    /// Each app's own identity provider, whose JWTs are accepted as tokens.
    public let identityProviders: IdentityProviders

    /// - Parameter jwksCertificateAuthorities: a PEM file of certificate authorities trusted,
    ///   beside the system's, when identity providers' JWKS are fetched.
    public init(
        store: any SyncStore, limits: Limits, now: @escaping @Sendable () -> Int64,
        onRevoked: @escaping @Sendable ([String]) -> Void = { _ in }, jwksCertificateAuthorities: String? = nil
    ) {
        self.store = store
        self.passwords = PasswordWorker(hasher: PasswordHasher(cost: limits.passwordHashCost))
        self.tokenLifetimeNanoseconds = Int64(limits.tokenLifetimeSeconds * 1e9)
        self.now = now
        self.passwordAttempts = RateLimiter(ratePerSecond: limits.passwordAttemptsPerMinute / 60, burst: limits.passwordAttemptsPerMinute * 2)
        self.verifiedTokens = VerifiedTokens()
        self.onRevoked = onRevoked
        self.identityProviders = IdentityProviders(store: store, limits: limits, certificateAuthorities: jwksCertificateAuthorities, now: now)
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
        /// The user's token that proved this identity; `nil` for the admin token, which is
        /// not revoked or expired this way. For a JWT, a record made from it: its hash, and
        /// its `exp` as the expiry.
        public var token: TokenRecord?
        /// Whether the token is a JWT of the app's identity provider (``IdentityProviders``):
        /// not stored, so not revoked here; it holds until its `exp`.
        public var isSignedByProvider = false
    }

    /// A user's token, as `create/` and `authorize/` return it.
    public struct Grant: Sendable, Equatable {
        public var username: String
        public var userID: String
        public var accessToken: String
    }

    public func createApp(name: String) async throws -> AppCredentials {
        let (credentials, record) = newApp(name: name)
        try await store.insertApp(record)
        return credentials
    }

    /// Creates an app named `name` if the store has none yet (a fresh server's default app);
    /// `nil` when it has one, made before or by a server that started at the same moment.
    public func createFirstApp(name: String) async throws -> AppCredentials? {
        let (credentials, record) = newApp(name: name)
        return try await store.insertFirstApp(record) ? credentials : nil
    }

    /// An app's new credentials, and the record that keeps their hashes.
    private func newApp(name: String) -> (AppCredentials, AppRecord) {
        let slug = String(name.lowercased().unicodeScalars.map { scalar -> Character in
            (scalar.properties.isAlphabetic && scalar.isASCII) || ("0"..."9").contains(scalar) ? Character(scalar) : "-"
        }.prefix(24))
        let appID = (slug.isEmpty ? "app" : slug) + "-" + Secrets.randomHex(byteCount: 3)
        let credentials = AppCredentials(
            appID: appID, name: name, apiKey: Secrets.randomHex(), adminToken: Secrets.randomHex())
        let record = AppRecord(
            id: appID, name: name, apiKeyHash: Secrets.hash(credentials.apiKey),
            adminTokenHash: Secrets.hash(credentials.adminToken), createdAt: now())
        return (credentials, record)
    }

    /// `create/`: a new user with a password, and their first token.
    public func createUser(appID: String, apiKey: String?, username: String, password: String) async throws -> Grant {
        try await requireAPIKey(apiKey, appID: appID)
        let name = try Username(username)
        try Self.validate(password: password)
        let user = UserRecord(
            appID: appID, id: Secrets.randomHex(), username: name.display, passwordHash: try await passwords.hash(password), createdAt: now())
        do {
            try await store.insertUser(user)
        } catch StoreError.duplicate {
            throw AccountError(.conflict, "the username \(name) is taken")
        }
        return try await issueToken(for: user)
    }

    /// `authorize/`: a new token for a user who proves their password.
    ///
    /// Attempts are throttled per canonical name, whoever makes them, and an unknown name
    /// (or a user without a password) is checked against a decoy hash, so the answer takes
    /// as long as for a real account and its timing does not tell which names exist.
    public func authorize(appID: String, apiKey: String?, username: String, password: String) async throws -> Grant {
        try await requireAPIKey(apiKey, appID: appID)
        let name = try Username(username)
        guard passwordAttempts.allow(appID + "/" + name.canonical) else {
            throw AccountError(.tooManyRequests, "too many password attempts for \(name); wait a minute")
        }
        let user = try await store.user(appID: appID, username: name.display)
        // An unknown name, or a user without a password, is checked against the decoy.
        guard await passwords.verify(password, against: user?.passwordHash), let user else {
            throw AccountError(.unauthorized, "the username or password is wrong")
        }
        return try await issueToken(for: user)
    }

    /// A token for a user without a password, creating the user if needed: what an admin (or
    /// `lockstep tokens create`) hands out, like the pre-generated tokens of Simperium's tutorials.
    public func issueToken(appID: String, username: String) async throws -> Grant {
        guard try await store.app(id: appID) != nil else { throw AccountError(.notFound, "there is no app \(appID)") }
        let name = try Username(username)
        if let user = try await store.user(appID: appID, username: name.display) {
            return try await issueToken(for: user)
        }
        let user = UserRecord(appID: appID, id: Secrets.randomHex(), username: name.display, passwordHash: nil, createdAt: now())
        do {
            try await store.insertUser(user)
            return try await issueToken(for: user)
        } catch StoreError.duplicate {
            return try await issueToken(appID: appID, username: username)
        }
    }

    func issueToken(for user: UserRecord) async throws -> Grant {
        let token = Secrets.randomHex()
        let issued = now()
        try await store.insertToken(TokenRecord(
            tokenHash: Secrets.hash(token), appID: user.appID, userID: user.id, createdAt: issued,
            expiresAt: tokenLifetimeNanoseconds > 0 ? issued + tokenLifetimeNanoseconds : nil))
        verifiedTokens.insert(Secrets.hash(token))
        return Grant(username: user.username, userID: user.id, accessToken: token)
    }

    private func requireAPIKey(_ apiKey: String?, appID: String) async throws {
        guard let app = try await store.app(id: appID) else { throw AccountError(.notFound, "there is no app \(appID)") }
        guard let apiKey, Secrets.hash(apiKey) == app.apiKeyHash else {
            throw AccountError(.unauthorized, "send the app's API key in X-Simperium-API-Key")
        }
    }

    static func validate(password: String) throws(AccountError) {
        guard !password.isEmpty, password.utf8.count <= 1024 else {
            throw AccountError(.badRequest, "a password must be 1 to 1024 bytes")
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
