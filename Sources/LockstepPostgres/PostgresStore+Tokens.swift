public import LockstepServer
import PostgresNIO

/// Access tokens: issued, looked up, and revoked.
extension PostgresStore {
    public func insertToken(_ token: TokenRecord) async throws {
        try await execute("""
            INSERT INTO tokens (token_hash, app_id, user_id, created_at, expires_at)
            VALUES (\(token.tokenHash), \(token.appID), \(token.userID), \(token.createdAt), \(token.expiresAt))
            """)
    }

    public func token(hash: String) async throws -> TokenRecord? {
        try await rows("SELECT \(unescaped: Columns.token) FROM tokens WHERE token_hash = \(hash)").first.map(Columns.token)
    }

    /// The three reads of ``TokenAuthentication`` as one query: one round trip, not three.
    public func tokenAuthentication(appID: String, tokenHash: String) async throws -> TokenAuthentication {
        guard let row = try await rows("""
            SELECT a.id, a.name, a.api_key_hash, a.admin_token_hash, a.created_at,
                   t.token_hash, t.app_id, t.user_id, t.created_at, t.expires_at, u.username
            FROM apps a
            LEFT JOIN tokens t ON t.token_hash = \(tokenHash) AND t.app_id = a.id AND a.admin_token_hash <> \(tokenHash)
            LEFT JOIN users u ON u.app_id = a.id AND u.id = t.user_id
            WHERE a.id = \(appID)
            """).first
        else { return TokenAuthentication() }
        let (id, name, apiKeyHash, adminTokenHash, createdAt, hash, tokenAppID, userID, tokenCreatedAt, expiresAt, username) = try row.decode(
            (String, String, String, String, Int64, String?, String?, String?, Int64?, Int64?, String?).self)
        let app = AppRecord(id: id, name: name, apiKeyHash: apiKeyHash, adminTokenHash: adminTokenHash, createdAt: createdAt)
        guard let hash, let tokenAppID, let userID, let tokenCreatedAt else { return TokenAuthentication(app: app) }
        let token = TokenRecord(tokenHash: hash, appID: tokenAppID, userID: userID, createdAt: tokenCreatedAt, expiresAt: expiresAt)
        return TokenAuthentication(app: app, token: token, username: username)
    }

    public func deleteToken(hash: String) async throws -> TokenRecord? {
        try await transaction { connection in
            let deleted = try await connection.query(
                "DELETE FROM tokens WHERE token_hash = \(hash) RETURNING \(unescaped: Columns.token)", logger: logger
            ).collect()
            guard let row = deleted.first else { return .rollback(nil) }
            try await Self.countRevocation(connection, logger)
            return .commit(try Columns.token(row))
        }
    }

    public func deleteTokens(appID: String, userID: String, keeping: String?) async throws -> [String] {
        try await transaction { connection in
            let deleted = try await connection.query("""
                DELETE FROM tokens WHERE app_id = \(appID) AND user_id = \(userID) AND token_hash IS DISTINCT FROM \(keeping)
                RETURNING token_hash
                """, logger: logger).collect().map { try $0.decode(String.self) }
            guard !deleted.isEmpty else { return .rollback([]) }
            try await Self.countRevocation(connection, logger)
            return .commit(deleted)
        }
    }

    public func tokenRevocations() async throws -> Int64 {
        try await rows("SELECT token_revocations FROM security_state").first.map { try $0.decode(Int64.self) } ?? 0
    }

    public func existingTokens(among hashes: [String]) async throws -> Set<String> {
        guard !hashes.isEmpty else { return [] }
        return Set(try await rows("SELECT token_hash FROM tokens WHERE token_hash = ANY(\(hashes))").map { try $0.decode(String.self) })
    }

    private static func countRevocation(_ connection: PostgresConnection, _ logger: Logger) async throws {
        _ = try await connection.query("UPDATE security_state SET token_revocations = token_revocations + 1", logger: logger).collect()
    }
}
