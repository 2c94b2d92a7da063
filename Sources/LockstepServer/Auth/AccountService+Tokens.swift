/// Tokens in use: who a token is, and ending tokens (revoking one or all of a user's, and
/// changing a password, which ends the others).
///
/// A token's requests are checked against the store every time, so a revoked or expired
/// token is refused at once on every node. Its open sockets are closed by ``TokenWatch``:
/// at once on the node that revoked it (``AccountService/onRevoked``), and within
/// ``Limits/tokenCheckIntervalSeconds`` on the others.
extension AccountService {
    /// Who a token belongs to. The app's admin token is accepted too, acting for the user
    /// named by `actingUserID` (`X-Simperium-User`) when given, and so is a JWT of the app's
    /// identity provider (``IdentityProviders``), as the user it names.
    public func authenticate(appID: String, token: String?, actingUserID: String? = nil) async throws -> Identity {
        guard let token, !token.isEmpty else {
            throw AccountError(.unauthorized, "send an access token in X-Simperium-Token (or Authorization: Bearer)")
        }
        // A Lockstep token is hex and has no dot: this scan is all a JWT costs it.
        if CompactJWS.looksLikeJWT(token) {
            let identity = try await identityProviders.authenticate(appID: appID, token: token)
            if let record = identity.token { verifiedTokens.insert(record.tokenHash) }
            return identity
        }
        let hash = Secrets.hash(token)
        let found = try await store.tokenAuthentication(appID: appID, tokenHash: hash)
        guard let app = found.app else { throw AccountError(.notFound, "there is no app \(appID)") }
        if hash == app.adminTokenHash {
            verifiedTokens.insert(hash)
            guard let actingUserID else { return Identity(appID: appID, userID: nil, username: nil, isAdmin: true) }
            guard let user = try await store.user(appID: appID, id: actingUserID) else {
                throw AccountError(.notFound, "there is no user \(actingUserID) in app \(appID)")
            }
            return Identity(appID: appID, userID: user.id, username: user.username, isAdmin: true)
        }
        guard let record = found.token, record.appID == appID else {
            throw AccountError(.unauthorized, "the token is not valid for app \(appID): it is unknown or was revoked")
        }
        if let expiresAt = record.expiresAt, expiresAt <= now() {
            throw AccountError(.unauthorized, "the token has expired; authorize again")
        }
        verifiedTokens.insert(hash)
        return Identity(appID: appID, userID: record.userID, username: found.username, isAdmin: false, token: record)
    }

    /// Whether `token` is the admin token of `appID` (`false` when there is no such app).
    func isAdminToken(_ token: String, appID: String) async throws -> Bool {
        try await store.app(id: appID)?.adminTokenHash == Secrets.hash(token)
    }

    /// Whether `hash` is a token's that is neither revoked nor expired (the app's admin token
    /// counts too); remembers it in ``verifiedTokens`` if so.
    func recognizes(tokenHash hash: String) async throws -> Bool {
        if let record = try await store.token(hash: hash) {
            guard record.expiresAt.map({ $0 > now() }) ?? true else { return false }
        } else {
            guard try await store.apps().contains(where: { $0.adminTokenHash == hash }) else { return false }
        }
        verifiedTokens.insert(hash)
        return true
    }

    /// Ends one token, named by its hash (``Secrets/hash(_:)``); `false` when there was no
    /// such token in the app.
    @discardableResult
    public func revoke(tokenHash hash: String, appID: String) async throws -> Bool {
        guard let record = try await store.token(hash: hash), record.appID == appID else { return false }
        guard try await store.deleteToken(hash: hash) != nil else { return false }
        onRevoked([hash])
        return true
    }

    /// Ends every token of a user but `keeping` (a token's hash); returns how many ended.
    @discardableResult
    public func revokeTokens(appID: String, userID: String, keeping: String? = nil) async throws -> Int {
        let hashes = try await store.deleteTokens(appID: appID, userID: userID, keeping: keeping)
        if !hashes.isEmpty { onRevoked(hashes) }
        return hashes.count
    }

    /// Ends every token of the user who signs in as `username`; throws 404 when there is none.
    @discardableResult
    public func revokeTokens(appID: String, username: String) async throws -> Int {
        let name = try Username(username)
        guard let user = try await store.user(appID: appID, username: name.display) else {
            throw AccountError(.notFound, "there is no user \(name) in app \(appID)")
        }
        return try await revokeTokens(appID: appID, userID: user.id)
    }

    /// Replaces the password of the user `identity` is, who proves the current one, and ends
    /// every other token of theirs (the one used here stays valid). Returns how many ended.
    ///
    /// A wrong current password counts against the user's password throttle, as a sign-in does.
    public func changePassword(of identity: Identity, current: String, new: String) async throws -> Int {
        guard let token = identity.token, let userID = identity.userID else {
            throw AccountError(.forbidden, "only a user's own token changes their password")
        }
        guard !identity.isSignedByProvider else {
            throw AccountError(.forbidden, "this user signs in through the app's identity provider: their password is the provider's to change")
        }
        try Self.validate(password: new)
        guard let user = try await store.user(appID: identity.appID, id: userID) else {
            throw AccountError(.notFound, "there is no user \(userID) in app \(identity.appID)")
        }
        guard passwordAttempts.allow(identity.appID + "/" + user.canonicalUsername) else {
            throw AccountError(.tooManyRequests, "too many password attempts for \(user.username); wait a minute")
        }
        guard user.passwordHash != nil else {
            throw AccountError(.forbidden, "user \(user.username) has no password to change: their tokens come from the admin")
        }
        guard await passwords.verify(current, against: user.passwordHash) else {
            throw AccountError(.forbidden, "the current password is wrong")
        }
        try await store.setPasswordHash(appID: identity.appID, userID: userID, hash: try await passwords.hash(new))
        return try await revokeTokens(appID: identity.appID, userID: userID, keeping: token.tokenHash)
    }
}
