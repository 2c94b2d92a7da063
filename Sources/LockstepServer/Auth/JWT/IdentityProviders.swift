import Crypto
import Foundation
public import LockstepCore
import Synchronization

/// Sign-in with an app's own identity provider: a JWT the provider signed is accepted
/// wherever a Lockstep token is, as the user its claims name (made on first sight, with no
/// password).
///
/// Each app's ``IdentityProviderSettings`` are read from the store at most once per
/// ``Limits/tokenCheckIntervalSeconds`` (so a change made on another node, or cleared, takes
/// effect as fast as a revoked token does); their keys are kept by ``ProviderKeys`` (a JWKS)
/// or parsed once (PEM). A user once seen is remembered, so a JWT's check reads nothing from
/// the store: it costs its signature.
///
/// A JWT's user is named by the provider's issuer and the user claim (`sub`): the same pair
/// is the same Lockstep user for good, whatever their email becomes. Their username is the
/// email claim when the token has one (so that invitations to spaces, which are by email,
/// reach them as they reach a password user), else the user claim.
public final class IdentityProviders: Sendable {
    let store: any SyncStore
    let limits: Limits
    let fetcher: JWKSFetcher
    let now: @Sendable () -> Int64
    private let entries = Mutex<[String: Entry]>([:])
    /// Users seen lately, by app and id: their username.
    private let users = Mutex<[String: String]>([:])
    private static let rememberedUsers = 100_000

    /// One app's settings as last read, and their keys.
    private struct Entry: Sendable {
        var provider: Provider?
        var readAt: ContinuousClock.Instant
    }

    struct Provider: Sendable {
        var settings: IdentityProviderSettings
        var keys: Keys

        enum Keys: Sendable {
            case fixed(JWTKeySet)
            case fetched(ProviderKeys)
        }

        func key(kid: String?, algorithm: JWTAlgorithm) async throws(JWTRefusal) -> JWTPublicKey {
            switch keys {
            case .fixed(let keySet): try keySet.key(kid: kid, algorithm: algorithm)
            case .fetched(let keys): try await keys.key(kid: kid, algorithm: algorithm)
            }
        }
    }

    init(store: any SyncStore, limits: Limits, certificateAuthorities: String?, now: @escaping @Sendable () -> Int64) {
        self.store = store
        self.limits = limits
        self.fetcher = JWKSFetcher(
            certificateAuthorities: certificateAuthorities, timeoutSeconds: limits.jwksFetchTimeoutSeconds, maximumBytes: limits.maximumJWKSBytes,
            allowPrivateAddresses: limits.jwksAllowPrivateAddresses)
        self.now = now
    }

    // MARK: Signing in

    /// The user a JWT signed by the app's provider names; throws an ``AccountError`` (401)
    /// saying which check failed, or 404 for an app that does not exist.
    func authenticate(appID: String, token: String) async throws -> AccountService.Identity {
        let jws = try Self.parse(token, maximumBytes: limits.maximumJWTBytes)
        guard let provider = try await provider(appID: appID) else {
            guard try await store.app(id: appID) != nil else { throw AccountError(.notFound, "there is no app \(appID)") }
            throw AccountError(
                .unauthorized, "app \(appID) accepts no JWTs: its admin sets its identity provider first (lockstep auth jwt set)")
        }
        let claims: VerifiedClaims
        do {
            let (algorithm, kid) = try JWTVerifier.algorithm(of: jws)
            let key = try await provider.key(kid: kid, algorithm: algorithm)
            claims = try JWTVerifier.verify(jws, key: key, settings: provider.settings, now: now())
        } catch {
            throw error.accountError
        }
        let user = try await user(appID: appID, issuer: provider.settings.issuer, claims: claims)
        let record = TokenRecord(
            tokenHash: Secrets.hash(token), appID: appID, userID: user.id, createdAt: claims.issuedAt, expiresAt: claims.expiresAt)
        return AccountService.Identity(
            appID: appID, userID: user.id, username: user.username, isAdmin: false, token: record, isSignedByProvider: true)
    }

    private static func parse(_ token: String, maximumBytes: Int) throws(AccountError) -> CompactJWS {
        do {
            return try CompactJWS(token, maximumBytes: maximumBytes)
        } catch {
            throw error.accountError
        }
    }

    /// The Lockstep user of a provider's user: the id is drawn from the issuer and subject,
    /// so every node finds (or makes) the same one.
    static func userID(issuer: String, subject: String) -> String {
        Hex.encode(Array(SHA256.hash(data: Array("jwt\u{0}\(issuer)\u{0}\(subject)".utf8)).prefix(16)))
    }

    private func user(appID: String, issuer: String, claims: VerifiedClaims) async throws -> (id: String, username: String) {
        let id = Self.userID(issuer: issuer, subject: claims.subject)
        let key = appID + "/" + id
        if let username = users.withLock({ $0[key] }) { return (id, username) }
        let user: UserRecord
        if let existing = try await store.user(appID: appID, id: id) {
            user = existing
        } else {
            user = try await firstSight(appID: appID, id: id, claims: claims)
        }
        users.withLock { users in
            if users.count >= Self.rememberedUsers { users.removeAll(keepingCapacity: true) }
            users[key] = user.username
        }
        return (id, user.username)
    }

    /// Makes the user of a token seen for the first time. Their username is their email, when
    /// the token has one that can be a username, else the user claim (prefixed with `jwt:` when
    /// it could not be a username alone, as an all-digit one could not).
    private func firstSight(appID: String, id: String, claims: VerifiedClaims) async throws -> UserRecord {
        let username: String
        if let email = claims.email, let address = try? InvitationAddress.validate(email) {
            username = address
        } else if let name = try? Username(claims.subject) {
            username = name.display
        } else {
            username = try Username("jwt:" + claims.subject).display
        }
        let user = UserRecord(appID: appID, id: id, username: username, passwordHash: nil, createdAt: now())
        do {
            try await store.insertUser(user)
            return user
        } catch StoreError.duplicate {
            // Another request (or node) made this user meanwhile, or the name is another user's.
            if let made = try await store.user(appID: appID, id: id) { return made }
            throw JWTRefusal(
                .userConflict,
                "the JWT's user would sign in as \(username), the username of another user of app \(appID): a user of the identity provider cannot take over an existing account"
            ).accountError
        }
    }

    // MARK: Settings

    /// The app's provider, read from the store when the cached reading is older than the
    /// token check interval.
    func provider(appID: String) async throws -> Provider? {
        let now = ContinuousClock.now
        let interval = Duration.nanoseconds(Int64(limits.tokenCheckIntervalSeconds * 1e9))
        if let entry = entries.withLock({ $0[appID] }), now - entry.readAt < interval { return entry.provider }
        let json = try await store.identityProvider(appID: appID)
        let settings = try json.map { json in try IdentityProviderSettings(json: json) }
        return entries.withLock { entries in
            let previous = entries[appID]?.provider
            // Unchanged settings keep their keys, and what was fetched of them.
            let provider = settings.map { settings in
                if let previous, previous.settings == settings { return previous }
                return Provider(settings: settings, keys: makeKeys(settings, seeded: nil))
            }
            entries[appID] = Entry(provider: provider, readAt: now)
            return provider
        }
    }

    private func makeKeys(_ settings: IdentityProviderSettings, seeded: JWTKeySet?) -> Provider.Keys {
        switch settings.keys {
        case .jwks(let url):
            return .fetched(ProviderKeys(url: url, fetcher: fetcher, limits: limits, seeded: seeded))
        case .publicKeys(let keys):
            // Checked when they were set (IdentityProviderSettings(json:)).
            return .fixed(JWTKeySet(keys: keys.compactMap { key in try? JWTPublicKey(pem: key.pem, kid: key.kid) }))
        }
    }

    /// Sets the app's provider. A JWKS is fetched first, so a URL that serves none (or a
    /// certificate the server does not trust) is refused now, with why, rather than at the
    /// first sign-in.
    public func set(appID: String, settings: IdentityProviderSettings) async throws {
        guard try await store.app(id: appID) != nil else { throw AccountError(.notFound, "there is no app \(appID)") }
        var seeded: JWTKeySet?
        if case .jwks(let url) = settings.keys {
            do {
                seeded = try await fetcher.fetch(url)
            } catch {
                throw AccountError(.badRequest, error.description)
            }
        }
        try await store.setIdentityProvider(appID: appID, settings: settings.json, at: now())
        let provider = Provider(settings: settings, keys: makeKeys(settings, seeded: seeded))
        entries.withLock { $0[appID] = Entry(provider: provider, readAt: .now) }
    }

    /// Stops the app accepting JWTs; `false` when it did not. Sockets open with a JWT stay
    /// until their token expires, as a revoked provider cannot reach them.
    @discardableResult
    public func clear(appID: String) async throws -> Bool {
        let existed = try await store.setIdentityProvider(appID: appID, settings: nil, at: now())
        entries.withLock { $0[appID] = Entry(provider: nil, readAt: .now) }
        return existed
    }

    /// The app's settings with what the server holds of its keys, as the admin API shows them;
    /// `nil` when the app accepts no JWTs.
    public func report(appID: String) async throws -> JSONObject? {
        guard let provider = try await provider(appID: appID) else { return nil }
        var report = provider.settings.json
        func describe(_ key: JWTPublicKey) -> JSONValue {
            .object(["kid": key.kid.map(JSONValue.string) ?? .null, "type": .string(key.typeName), "alg": .string(key.algorithm.rawValue)])
        }
        switch provider.keys {
        case .fixed(let keySet):
            report["keys"] = .array(keySet.keys.map(describe))
        case .fetched(let keys):
            let status = keys.status
            var jwks: JSONObject = ["keys": .array(status.keys.map(describe)), "fetches": .integer(Int64(status.fetches))]
            if !status.unusable.isEmpty { jwks["unusable"] = .object(status.unusable.mapValues(JSONValue.string)) }
            if let seconds = status.secondsSinceFetch { jwks["fetchedSecondsAgo"] = .number((seconds * 10).rounded() / 10) }
            if let error = status.lastError { jwks["lastError"] = .string(error) }
            report["jwks"] = .object(jwks)
        }
        return report
    }
}
