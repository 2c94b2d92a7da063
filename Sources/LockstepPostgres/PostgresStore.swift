import Foundation
public import LockstepCore
public import LockstepServer
public import Logging
import PostgresNIO

/// The store for several server nodes: one PostgreSQL database that every node shares.
///
/// It keeps exactly what ``SQLiteStore`` keeps, in the same tables, with the same meaning;
/// both pass the same contract tests. What changes is concurrency: nodes commit at the same
/// time, so a commit takes its bucket's row lock before it checks anything (see
/// ``commit(_:_:)``), and announces itself with a `NOTIFY` inside its transaction, which a
/// ``PostgresChangeRelay`` on every node turns into local change events.
///
/// ```swift
/// let store = try await PostgresStore.connect(url: "postgres://lockstep:secret@db:5432/lockstep", serverKey: key)
/// let services = LockstepServices(store: store, limits: Limits(), clock: ServerClockSource(), logger: logger)
/// let relay = PostgresChangeRelay(store: store, hub: services.hub, logger: logger)
/// // run the relay beside the HTTP server (both are services), then:
/// await store.shutdown()
/// ```
public final class PostgresStore: SyncStore {
    public let configuration: Configuration
    /// This store's name among the nodes sharing the database: recorded with every change it
    /// commits and sent in its notifications. Drawn anew each time a store connects.
    public let nodeID: String
    /// Seals the secrets the database keeps (see ``ServerKey``).
    let serverKey: ServerKey
    let client: PostgresClient
    let logger: Logger
    private let running: Task<Void, Never>
    /// What the apps' webhook endpoints want, as this node knows it (see ``WebhookInterest``).
    public let webhookInterest = WebhookInterest()
    /// The names of spaces whose buckets' changes were webhook events.
    let spaceNames = SpaceNameCache()

    private init(configuration: Configuration, serverKey: ServerKey, logger: Logger) {
        self.configuration = configuration
        self.serverKey = serverKey
        self.logger = logger
        nodeID = UUID().uuidString.lowercased()
        let client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: logger)
        self.client = client
        // The pool does its work (connecting, keeping alive, closing) inside `run()`, which
        // must be running for any query to start; `shutdown()` ends it.
        running = Task { await client.run() }
    }

    /// Connects to the database at `url` (see ``Configuration/init(url:)``) and brings its schema up to date.
    public static func connect(url: String, serverKey: ServerKey, logger: Logger = Logger(label: "lockstep.postgres")) async throws
        -> PostgresStore
    {
        try await connect(Configuration(url: url), serverKey: serverKey, logger: logger)
    }

    /// Connects, and brings the schema up to date.
    ///
    /// Every node sharing the database needs the same `serverKey`: the first to connect
    /// records the key's id, and this throws ``StoreError/wrongServerKey(expected:given:)``
    /// for any other. Throws ``PostgresStoreError/cannotConnect(_:)`` at once when the server
    /// cannot be reached or refuses the credentials, rather than leaving queries waiting for a
    /// pool that never fills.
    public static func connect(_ configuration: Configuration, serverKey: ServerKey, logger: Logger = Logger(label: "lockstep.postgres"))
        async throws -> PostgresStore
    {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: try configuration.connectionConfiguration(application: "lockstep migrations"), id: 0, logger: logger)
        } catch {
            throw PostgresStoreError.cannotConnect("\(configuration.redactedDescription): \(Self.describe(error))")
        }
        do {
            do {
                try await PostgresSchema.migrate(connection, schema: configuration.schema, logger: logger)
            } catch {
                throw PostgresStoreError.cannotConnect("\(configuration.redactedDescription): \(Self.describe(error))")
            }
            try await PostgresSecurityUpkeep(serverKey: serverKey, schema: configuration.schema, logger: logger).run(on: connection)
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
        let store = PostgresStore(configuration: configuration, serverKey: serverKey, logger: logger)
        do {
            try await store.refreshWebhookInterest()
        } catch {
            await store.shutdown()
            throw error
        }
        return store
    }

    /// Closes every connection. Queries after this fail.
    public func shutdown() async {
        running.cancel()
        await running.value
    }

    // MARK: Accounts

    public func insertApp(_ app: AppRecord) async throws {
        do {
            try await execute("""
                INSERT INTO apps (id, name, api_key_hash, admin_token_hash, created_at)
                VALUES (\(app.id), \(app.name), \(app.apiKeyHash), \(app.adminTokenHash), \(app.createdAt))
                """)
        } catch where error.isUniqueViolation {
            throw StoreError.duplicate("app \(app.id)")
        }
    }

    public func insertFirstApp(_ app: AppRecord) async throws -> Bool {
        try await transaction { connection in
            // A lock that takes turns with itself: a node starting beside this one waits here
            // until this transaction ends, then finds its app.
            try await connection.query("LOCK TABLE apps IN SHARE ROW EXCLUSIVE MODE", logger: logger)
            let empty = try await connection.query("SELECT NOT EXISTS (SELECT 1 FROM apps)", logger: logger).collect().first?.decode(Bool.self)
            guard empty == true else { return .rollback(false) }
            try await connection.query("""
                INSERT INTO apps (id, name, api_key_hash, admin_token_hash, created_at)
                VALUES (\(app.id), \(app.name), \(app.apiKeyHash), \(app.adminTokenHash), \(app.createdAt))
                """, logger: logger)
            return .commit(true)
        }
    }

    public func app(id: String) async throws -> AppRecord? {
        try await rows("SELECT \(unescaped: Columns.app) FROM apps WHERE id = \(id)").first.map(Columns.app)
    }

    public func apps() async throws -> [AppRecord] {
        // COLLATE "C" orders ids by their bytes, as SQLite does, whatever the database's locale.
        try await rows("SELECT \(unescaped: Columns.app) FROM apps ORDER BY created_at, id COLLATE \"C\"").map(Columns.app)
    }

    public func insertUser(_ user: UserRecord) async throws {
        let sealedHash = user.passwordHash.map { serverKey.sealPasswordHash($0, appID: user.appID, userID: user.id) }
        do {
            try await transaction { connection in
                try await Self.lockName(user.canonicalUsername, appID: user.appID, connection, logger)
                try await connection.query("""
                    INSERT INTO users (app_id, id, username, canonical_username, password_hash, created_at)
                    VALUES (\(user.appID), \(user.id), \(user.username), \(user.canonicalUsername), \(sealedHash), \(user.createdAt))
                    """, logger: logger)
                try await Self.acceptInvitations(of: user, connection, logger)
                return .commit(())
            }
        } catch where error.isUniqueViolation {
            throw StoreError.duplicate("user \(user.username)")
        }
    }

    public func user(appID: String, username: String) async throws -> UserRecord? {
        let users = try await rows("""
            SELECT \(unescaped: Columns.user) FROM users WHERE app_id = \(appID) AND canonical_username = \(Username.canonical(username))
            ORDER BY canonical_collision, created_at, id COLLATE "C"
            """).map(user)
        return UserRecord.signingIn(as: username, among: users)
    }

    public func user(appID: String, id: String) async throws -> UserRecord? {
        try await rows("SELECT \(unescaped: Columns.user) FROM users WHERE app_id = \(appID) AND id = \(id)").first.map(user)
    }

    public func setPasswordHash(appID: String, userID: String, hash: String?) async throws {
        let sealed = hash.map { serverKey.sealPasswordHash($0, appID: appID, userID: userID) }
        try await execute("UPDATE users SET password_hash = \(sealed) WHERE app_id = \(appID) AND id = \(userID)")
    }

    public func usernameCollisions() async throws -> [UsernameCollision] {
        try await rows("""
            SELECT c.app_id, c.id, c.username, o.username FROM users c
            JOIN users o ON o.app_id = c.app_id AND o.canonical_username = c.canonical_username AND NOT o.canonical_collision
            WHERE c.canonical_collision ORDER BY c.app_id COLLATE "C", c.created_at, c.id COLLATE "C"
            """).map { row in
            let (appID, userID, username, owner) = try row.decode((String, String, String, String).self)
            return UsernameCollision(appID: appID, userID: userID, username: username, collidesWith: owner)
        }
    }

    public func peerSecret(appID: String) async throws -> String? {
        // Set once: of two nodes racing here, the second's UPDATE matches nothing and both read the first's.
        let drawn = serverKey.sealPeerSecret(Secrets.randomHex(byteCount: 32), appID: appID)
        try await execute("UPDATE apps SET peer_secret = \(drawn) WHERE id = \(appID) AND peer_secret IS NULL")
        return try await rows("SELECT peer_secret FROM apps WHERE id = \(appID)").first
            .map { row in try serverKey.openPeerSecret(try row.decode(String.self), appID: appID) }
    }

    /// A user from its row, the password hash opened.
    private func user(_ row: PostgresRow) throws -> UserRecord {
        var user = try Columns.user(row)
        user.passwordHash = try user.passwordHash.map { sealed throws(ServerKeyError) in
            try serverKey.openPasswordHash(sealed, appID: user.appID, userID: user.id)
        }
        return user
    }

    // MARK: Bucket options

    public func bucketOptions(appID: String, bucket: String) async throws -> JSONObject? {
        try await rows("SELECT options FROM bucket_options WHERE app_id = \(appID) AND bucket = \(bucket)").first
            .map { row in try StoredValueCoding.object(try row.decode(String.self)) }
    }

    public func setBucketOptions(appID: String, bucket: String, options: JSONObject) async throws {
        try await execute("""
            INSERT INTO bucket_options (app_id, bucket, options) VALUES (\(appID), \(bucket), \(StoredValueCoding.text(options)))
            ON CONFLICT (app_id, bucket) DO UPDATE SET options = excluded.options
            """)
    }

    // MARK: Queries

    /// Runs a query on a pooled connection and collects its rows.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await client.query(query, logger: logger).collect()
    }

    func execute(_ query: PostgresQuery) async throws {
        _ = try await rows(query)
    }

    /// How a transaction ends: committed, or rolled back with an answer all the same (a
    /// version conflict is an answer, not an error).
    enum TransactionEnd<Value> {
        case commit(Value)
        case rollback(Value)
    }

    /// Runs `body` in a transaction on one pooled connection; an error rolls it back and is rethrown as is.
    func transaction<Value: Sendable>(_ body: (PostgresConnection) async throws -> TransactionEnd<Value>) async throws -> Value {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            let end: TransactionEnd<Value>
            do {
                end = try await body(connection)
            } catch {
                await rollBack(connection)
                throw error
            }
            switch end {
            case .commit(let value):
                try await connection.query("COMMIT", logger: logger)
                return value
            case .rollback(let value):
                await rollBack(connection)
                return value
            }
        }
    }

    /// Rolls back, or closes a connection that cannot, so that the pool never lends out a
    /// connection stuck in a transaction.
    private func rollBack(_ connection: PostgresConnection) async {
        do {
            try await connection.query("ROLLBACK", logger: logger)
        } catch {
            try? await connection.close()
        }
    }

    /// A message for people: what the server said, or why it could not be reached.
    /// (`PSQLError` hides everything from its `description` in case it reaches an end user.)
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        return error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)"
    }
}

extension Error {
    /// Whether PostgreSQL refused a row because a unique key already had it (SQLSTATE 23505).
    var isUniqueViolation: Bool {
        (self as? PSQLError)?.serverInfo?[.sqlState] == "23505"
    }
}
