import LockstepServer
import Logging
import PostgresNIO

/// What connecting to PostgreSQL does after the migrations: checks the server key, gives
/// accounts made before names were canonical their canonical name, and seals secrets stored
/// before sealing. Running it again finds nothing left to do.
///
/// Nodes starting together must not all do the work: the key is recorded by a conditional
/// update (the first node's wins), and the rest runs in one transaction under the migration
/// lock, only when a quick look finds rows that need it, so that starting a node on an
/// up-to-date database takes no lock at all.
struct PostgresSecurityUpkeep {
    let serverKey: ServerKey
    let schema: String?
    let logger: Logger

    func run(on connection: PostgresConnection) async throws {
        try await checkServerKey(connection)
        guard try await hasWork(connection) else { return }
        try await connection.query("BEGIN", logger: logger)
        do {
            try await PostgresSchema.lockMigrations(connection, schema: schema, logger: logger)
            try await canonicalizeUsernames(connection)
            try await sealPeerSecrets(connection)
            try await sealPasswordHashes(connection)
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// The first key to open the database is its key from then on.
    private func checkServerKey(_ connection: PostgresConnection) async throws {
        try await rows(connection, "UPDATE security_state SET server_key_id = \(serverKey.id) WHERE server_key_id IS NULL")
        let expected = try await rows(connection, "SELECT server_key_id FROM security_state")[0].decode(String.self)
        guard expected == serverKey.id else { throw StoreError.wrongServerKey(expected: expected, given: serverKey.id) }
    }

    /// Whether any row is from before canonical names or sealing.
    private func hasWork(_ connection: PostgresConnection) async throws -> Bool {
        let unsealed = ServerKey.sealedPrefix + "%"
        return try await rows(connection, """
            SELECT EXISTS (SELECT 1 FROM users WHERE canonical_username IS NULL)
                OR EXISTS (SELECT 1 FROM users WHERE password_hash IS NOT NULL AND password_hash NOT LIKE \(unsealed))
                OR EXISTS (SELECT 1 FROM apps WHERE peer_secret IS NOT NULL AND peer_secret NOT LIKE \(unsealed))
            """)[0].decode(Bool.self)
    }

    /// Oldest first, so that of accounts whose names collide the oldest keeps the name.
    private func canonicalizeUsernames(_ connection: PostgresConnection) async throws {
        let users = try await rows(
            connection, "SELECT app_id, id, username FROM users WHERE canonical_username IS NULL ORDER BY created_at, id COLLATE \"C\"")
        for row in users {
            let (appID, id, username) = try row.decode((String, String, String).self)
            let canonical = Username.canonical(username)
            let taken = try await rows(connection, """
                SELECT EXISTS (SELECT 1 FROM users WHERE app_id = \(appID) AND canonical_username = \(canonical) AND NOT canonical_collision)
                """)[0].decode(Bool.self)
            try await rows(connection, """
                UPDATE users SET canonical_username = \(canonical), canonical_collision = \(taken) WHERE app_id = \(appID) AND id = \(id)
                """)
        }
    }

    private func sealPeerSecrets(_ connection: PostgresConnection) async throws {
        let apps = try await rows(
            connection, "SELECT id, peer_secret FROM apps WHERE peer_secret IS NOT NULL AND peer_secret NOT LIKE \(ServerKey.sealedPrefix + "%")")
        for row in apps {
            let (appID, secret) = try row.decode((String, String).self)
            try await rows(connection, "UPDATE apps SET peer_secret = \(serverKey.sealPeerSecret(secret, appID: appID)) WHERE id = \(appID)")
        }
    }

    private func sealPasswordHashes(_ connection: PostgresConnection) async throws {
        let users = try await rows(connection, """
            SELECT app_id, id, password_hash FROM users WHERE password_hash IS NOT NULL AND password_hash NOT LIKE \(ServerKey.sealedPrefix + "%")
            """)
        for row in users {
            let (appID, userID, hash) = try row.decode((String, String, String).self)
            let sealed = serverKey.sealPasswordHash(hash, appID: appID, userID: userID)
            try await rows(connection, "UPDATE users SET password_hash = \(sealed) WHERE app_id = \(appID) AND id = \(userID)")
        }
    }

    @discardableResult
    private func rows(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> [PostgresRow] {
        try await connection.query(query, logger: logger).collect()
    }
}
