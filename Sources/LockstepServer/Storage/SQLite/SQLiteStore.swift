import Foundation
import GRDB
public import LockstepCore

/// The embedded store: one SQLite database in write-ahead-log mode, synchronous writes, so a
/// change is on disk before it is acknowledged.
public final class SQLiteStore: SyncStore {
    let pool: DatabasePool
    /// Seals the secrets the database keeps (see ``ServerKey``).
    let serverKey: ServerKey
    /// This run's name in presence claims: every claim of another run is orphaned.
    public let nodeID = UUID().uuidString.lowercased()

    /// Token lookups waiting to be read together.
    let tokenLookups: TokenLookups
    /// The apps' positions in their commit order, as the writer advanced them.
    let appSequences = AppSequences()
    /// What the apps' webhook endpoints want: loaded when the store opens, kept by the writer.
    public let webhookInterest = WebhookInterest()
    /// The names of spaces whose buckets' changes were webhook events.
    let spaceNames = SpaceNameCache()

    /// The database file.
    public var path: String { pool.path }

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    ///
    /// A new database file is made readable by its owner only (mode 0600), and so are its
    /// `-wal` and `-shm` files, which SQLite creates with the database's mode. Without a
    /// `serverKey`, the key in `server.key` beside the database is used (made on first use).
    /// Throws ``StoreError/wrongServerKey(expected:given:)`` when the database's secrets were
    /// sealed under another key.
    public init(path: String, serverKey: ServerKey? = nil) throws {
        try PrivateFiles.createFile(path)
        self.serverKey = try serverKey
            ?? ServerKey.loadOrCreate(path: URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("server.key").path).key
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let pool = try DatabasePool(path: path, configuration: configuration)
        self.pool = pool
        tokenLookups = TokenLookups { lookups in try await Self.tokenAuthentications(lookups, in: pool) }
        // WAL's default, NORMAL, can lose the last transactions on power loss; a sync server
        // acknowledges writes, so every commit waits for the disk. Set on the pool's one writer
        // connection once it is open: GRDB turns WAL on after `prepareDatabase` runs, and sets
        // NORMAL as it does, so a pragma there is undone.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try SQLiteSchema.refuseNewer(pool)
        try SQLiteSchema.migrator.migrate(pool)
        try SQLiteSecurityUpkeep(serverKey: self.serverKey).run(in: pool)
        try pool.read { db in try loadWebhookInterest(db) }
    }

    // MARK: Accounts

    public func insertApp(_ app: AppRecord) async throws {
        try await pool.write { db in
            do {
                try db.execute(
                    sql: "INSERT INTO apps (id, name, api_key_hash, admin_token_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [app.id, app.name, app.apiKeyHash, app.adminTokenHash, app.createdAt])
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw StoreError.duplicate("app \(app.id)")
            }
        }
    }

    public func insertFirstApp(_ app: AppRecord) async throws -> Bool {
        try await pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM apps)") == true else { return false }
            try db.execute(
                sql: "INSERT INTO apps (id, name, api_key_hash, admin_token_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [app.id, app.name, app.apiKeyHash, app.adminTokenHash, app.createdAt])
            return true
        }
    }

    public func app(id: String) async throws -> AppRecord? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM apps WHERE id = ?"), arguments: [id]).map(Self.app)
        }
    }

    public func apps() async throws -> [AppRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM apps ORDER BY created_at, id").map(Self.app)
        }
    }

    public func insertUser(_ user: UserRecord) async throws {
        let sealedHash = user.passwordHash.map { serverKey.sealPasswordHash($0, appID: user.appID, userID: user.id) }
        try await pool.write { db in
            do {
                try db.execute(
                    sql: """
                        INSERT INTO users (app_id, id, username, canonical_username, password_hash, created_at)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [user.appID, user.id, user.username, user.canonicalUsername, sealedHash, user.createdAt])
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw StoreError.duplicate("user \(user.username)")
            }
            try Self.acceptInvitations(db, of: user)
        }
    }

    public func user(appID: String, username: String) async throws -> UserRecord? {
        let users = try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM users WHERE app_id = ? AND canonical_username = ? ORDER BY canonical_collision, created_at, id",
                arguments: [appID, Username.canonical(username)]
            ).map(self.user)
        }
        return UserRecord.signingIn(as: username, among: users)
    }

    public func user(appID: String, id: String) async throws -> UserRecord? {
        try await pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE app_id = ? AND id = ?"), arguments: [appID, id]).map(self.user)
        }
    }

    public func setPasswordHash(appID: String, userID: String, hash: String?) async throws {
        let sealed = hash.map { serverKey.sealPasswordHash($0, appID: appID, userID: userID) }
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET password_hash = ? WHERE app_id = ? AND id = ?", arguments: [sealed, appID, userID])
        }
    }

    public func usernameCollisions() async throws -> [UsernameCollision] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.app_id, c.id, c.username, o.username AS owner FROM users c
                    JOIN users o ON o.app_id = c.app_id AND o.canonical_username = c.canonical_username AND o.canonical_collision = 0
                    WHERE c.canonical_collision = 1 ORDER BY c.app_id, c.created_at, c.id
                    """
            ).map { row in
                UsernameCollision(appID: row["app_id"], userID: row["id"], username: row["username"], collidesWith: row["owner"])
            }
        }
    }

    public func peerSecret(appID: String) async throws -> String? {
        let drawn = serverKey.sealPeerSecret(Secrets.randomHex(byteCount: 32), appID: appID)
        let stored = try await pool.write { db in
            // Set once: a second caller keeps the first caller's secret.
            try db.execute(sql: "UPDATE apps SET peer_secret = ? WHERE id = ? AND peer_secret IS NULL", arguments: [drawn, appID])
            return try String.fetchOne(db, sql: "SELECT peer_secret FROM apps WHERE id = ?", arguments: [appID])
        }
        return try stored.map { sealed throws(ServerKeyError) in try serverKey.openPeerSecret(sealed, appID: appID) }
    }

    static func app(_ row: Row) -> AppRecord {
        AppRecord(
            id: row["id"], name: row["name"], apiKeyHash: row["api_key_hash"], adminTokenHash: row["admin_token_hash"],
            createdAt: row["created_at"])
    }

    /// A user from its row, the password hash opened.
    private func user(_ row: Row) throws -> UserRecord {
        let appID: String = row["app_id"]
        let id: String = row["id"]
        let sealedHash: String? = row["password_hash"]
        return UserRecord(
            appID: appID, id: id, username: row["username"],
            passwordHash: try sealedHash.map { sealed throws(ServerKeyError) in try serverKey.openPasswordHash(sealed, appID: appID, userID: id) },
            createdAt: row["created_at"])
    }

    // MARK: Bucket options

    public func bucketOptions(appID: String, bucket: String) async throws -> JSONObject? {
        try await pool.read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT options FROM bucket_options WHERE app_id = ? AND bucket = ?"), arguments: [appID, bucket])
                .map(StoredValueCoding.object)
        }
    }

    public func setBucketOptions(appID: String, bucket: String, options: JSONObject) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO bucket_options (app_id, bucket, options) VALUES (?, ?, ?)
                    ON CONFLICT (app_id, bucket) DO UPDATE SET options = excluded.options
                    """,
                arguments: [appID, bucket, StoredValueCoding.text(options)])
        }
    }
}
