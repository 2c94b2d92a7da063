/// What authenticating a request by its access token reads from the store: the app, the token
/// when it is one of the app's, and the name of the token's user.
///
/// One read instead of three, because every authenticated request needs all of it: on SQLite
/// a read is a hop to a reader's queue and back, and the hops cost more than the reads (a
/// purchase rush spent more server CPU waking threads than reading rows; BENCHMARKS.md).
public struct TokenAuthentication: Sendable, Equatable {
    /// `nil` when there is no such app.
    public var app: AppRecord?
    /// `nil` when the hash is the app's admin token's, names no token, or a token of another
    /// app. An expired token is here: refusing it is the caller's part.
    public var token: TokenRecord?
    /// The username of the token's user; `nil` without ``token``.
    public var username: String?

    public init(app: AppRecord? = nil, token: TokenRecord? = nil, username: String? = nil) {
        self.app = app
        self.token = token
        self.username = username
    }
}

extension SyncStore {
    /// The three reads one at a time: for a store where they cost no more apart.
    public func tokenAuthentication(appID: String, tokenHash: String) async throws -> TokenAuthentication {
        guard let app = try await app(id: appID) else { return TokenAuthentication() }
        guard tokenHash != app.adminTokenHash, let token = try await token(hash: tokenHash), token.appID == appID else {
            return TokenAuthentication(app: app)
        }
        return TokenAuthentication(app: app, token: token, username: try await user(appID: appID, id: token.userID)?.username)
    }
}
