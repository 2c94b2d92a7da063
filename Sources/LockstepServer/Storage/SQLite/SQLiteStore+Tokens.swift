import GRDB

/// Access tokens: issued, looked up, and revoked.
extension SQLiteStore {
    public func insertToken(_ token: TokenRecord) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO tokens (token_hash, app_id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [token.tokenHash, token.appID, token.userID, token.createdAt, token.expiresAt])
        }
    }

    public func token(hash: String) async throws -> TokenRecord? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM tokens WHERE token_hash = ?"), arguments: [hash]).map(Self.token)
        }
    }

    /// The three reads of ``TokenAuthentication`` in one read transaction, shared with the
    /// lookups that wait beside it (``TokenLookups``): one hop to a reader's queue for many.
    public func tokenAuthentication(appID: String, tokenHash: String) async throws -> TokenAuthentication {
        try await tokenLookups.lookUp(appID: appID, tokenHash: tokenHash)
    }

    /// Reads a batch of lookups for ``TokenLookups``, in one read transaction.
    static func tokenAuthentications(_ lookups: [TokenLookups.Lookup], in pool: DatabasePool) async throws -> [TokenAuthentication] {
        try await pool.read { db in try lookups.map { try tokenAuthentication(db, appID: $0.appID, tokenHash: $0.tokenHash) } }
    }

    private static func tokenAuthentication(_ db: Database, appID: String, tokenHash: String) throws -> TokenAuthentication {
        guard let app = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM apps WHERE id = ?"), arguments: [appID]).map(Self.app)
        else { return TokenAuthentication() }
        guard tokenHash != app.adminTokenHash,
            let token = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM tokens WHERE token_hash = ?"), arguments: [tokenHash])
                .map(Self.token),
            token.appID == appID
        else { return TokenAuthentication(app: app) }
        let username = try String.fetchOne(
            db.cachedStatement(sql: "SELECT username FROM users WHERE app_id = ? AND id = ?"), arguments: [appID, token.userID])
        return TokenAuthentication(app: app, token: token, username: username)
    }

    public func deleteToken(hash: String) async throws -> TokenRecord? {
        try await pool.write { db in
            guard let token = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM tokens WHERE token_hash = ?"), arguments: [hash]).map(Self.token)
            else { return nil }
            try db.execute(sql: "DELETE FROM tokens WHERE token_hash = ?", arguments: [hash])
            try Self.countRevocation(db)
            return token
        }
    }

    public func deleteTokens(appID: String, userID: String, keeping: String?) async throws -> [String] {
        try await pool.write { db in
            let hashes = try String.fetchAll(
                db, sql: "SELECT token_hash FROM tokens WHERE app_id = ? AND user_id = ? AND token_hash IS NOT ?",
                arguments: [appID, userID, keeping])
            guard !hashes.isEmpty else { return [] }
            try db.execute(
                sql: "DELETE FROM tokens WHERE app_id = ? AND user_id = ? AND token_hash IS NOT ?", arguments: [appID, userID, keeping])
            try Self.countRevocation(db)
            return hashes
        }
    }

    public func tokenRevocations() async throws -> Int64 {
        try await pool.read { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT token_revocations FROM security_state")) ?? 0
        }
    }

    public func existingTokens(among hashes: [String]) async throws -> Set<String> {
        guard !hashes.isEmpty else { return [] }
        return try await pool.read { db in
            var existing = Set<String>()
            // In slices, under SQLite's limit on bound parameters.
            for start in stride(from: 0, to: hashes.count, by: 500) {
                let slice = Array(hashes[start..<min(start + 500, hashes.count)])
                let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
                existing.formUnion(try String.fetchAll(
                    db, sql: "SELECT token_hash FROM tokens WHERE token_hash IN (\(marks))", arguments: StatementArguments(slice)))
            }
            return existing
        }
    }

    private static func countRevocation(_ db: Database) throws {
        try db.execute(sql: "UPDATE security_state SET token_revocations = token_revocations + 1")
    }

    private static func token(_ row: Row) -> TokenRecord {
        TokenRecord(
            tokenHash: row["token_hash"], appID: row["app_id"], userID: row["user_id"], createdAt: row["created_at"],
            expiresAt: row["expires_at"])
    }
}
