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
