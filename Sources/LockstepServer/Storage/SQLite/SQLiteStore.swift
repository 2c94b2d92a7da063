import Foundation
import GRDB
public import LockstepCore

/// The embedded store: one SQLite database in write-ahead-log mode, synchronous writes, so a
/// change is on disk before it is acknowledged.
public final class SQLiteStore: SyncStore {
    let pool: DatabasePool
    /// This run's name in presence claims: every claim of another run is orphaned.
    public let nodeID = UUID().uuidString.lowercased()

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: configuration)
        // WAL's default, NORMAL, can lose the last transactions on power loss; a sync server
        // acknowledges writes, so every commit waits for the disk. Set on the pool's one writer
        // connection once it is open: GRDB turns WAL on after `prepareDatabase` runs, and sets
        // NORMAL as it does, so a pragma there is undone.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try SQLiteSchema.migrator.migrate(pool)
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

    public func app(id: String) async throws -> AppRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM apps WHERE id = ?", arguments: [id]).map(Self.app)
        }
    }

    public func apps() async throws -> [AppRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM apps ORDER BY created_at, id").map(Self.app)
        }
    }

    public func insertUser(_ user: UserRecord) async throws {
        try await pool.write { db in
            do {
                try db.execute(
                    sql: "INSERT INTO users (app_id, id, username, password_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: [user.appID, user.id, user.username, user.passwordHash, user.createdAt])
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw StoreError.duplicate("user \(user.username)")
            }
        }
    }

    public func user(appID: String, username: String) async throws -> UserRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE app_id = ? AND username = ?", arguments: [appID, username])
                .map(Self.user)
        }
    }

    public func user(appID: String, id: String) async throws -> UserRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE app_id = ? AND id = ?", arguments: [appID, id]).map(Self.user)
        }
    }

    public func insertToken(_ token: TokenRecord) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO tokens (token_hash, app_id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [token.tokenHash, token.appID, token.userID, token.createdAt, token.expiresAt])
        }
    }

    public func token(hash: String) async throws -> TokenRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM tokens WHERE token_hash = ?", arguments: [hash]).map { row in
                TokenRecord(
                    tokenHash: row["token_hash"], appID: row["app_id"], userID: row["user_id"],
                    createdAt: row["created_at"], expiresAt: row["expires_at"])
            }
        }
    }

    public func peerSecret(appID: String) async throws -> String? {
        try await pool.write { db in
            // Set once: a second caller keeps the first caller's secret.
            try db.execute(
                sql: "UPDATE apps SET peer_secret = ? WHERE id = ? AND peer_secret IS NULL",
                arguments: [Secrets.randomHex(byteCount: 32), appID])
            return try String.fetchOne(db, sql: "SELECT peer_secret FROM apps WHERE id = ?", arguments: [appID])
        }
    }

    private static func app(_ row: Row) -> AppRecord {
        AppRecord(
            id: row["id"], name: row["name"], apiKeyHash: row["api_key_hash"], adminTokenHash: row["admin_token_hash"],
            createdAt: row["created_at"])
    }

    private static func user(_ row: Row) -> UserRecord {
        UserRecord(
            appID: row["app_id"], id: row["id"], username: row["username"], passwordHash: row["password_hash"],
            createdAt: row["created_at"])
    }

    // MARK: Bucket options

    public func bucketOptions(appID: String, bucket: String) async throws -> JSONObject? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT options FROM bucket_options WHERE app_id = ? AND bucket = ?", arguments: [appID, bucket])
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
