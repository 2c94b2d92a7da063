import Logging
import LockstepServer
import PostgresNIO

/// Lockstep's tables in PostgreSQL, created and upgraded by numbered migrations.
///
/// The tables are those of the SQLite store, column for column, with one addition:
/// `changes.origin` names the node that committed each change, so that a node catching up
/// on missed notifications skips its own changes (it announced those itself).
///
/// Every node runs ``migrate(_:schema:through:logger:)`` when it connects. The migrations run in one
/// transaction under an advisory lock, so nodes starting together neither race nor see a
/// half-made schema, and running them again changes nothing.
enum PostgresSchema {
    /// Each migration is a list of statements (the extended protocol runs one statement per query).
    static let migrations: [[PostgresQuery]] = [
        [
            """
            CREATE TABLE apps (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                api_key_hash TEXT NOT NULL,
                admin_token_hash TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                last_sequence BIGINT NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE users (
                app_id TEXT NOT NULL,
                id TEXT NOT NULL,
                username TEXT NOT NULL,
                password_hash TEXT,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, id),
                UNIQUE (app_id, username)
            )
            """,
            """
            CREATE TABLE tokens (
                token_hash TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT
            )
            """,
            """
            CREATE TABLE bucket_options (
                app_id TEXT NOT NULL,
                bucket TEXT NOT NULL,
                options TEXT NOT NULL,
                PRIMARY KEY (app_id, bucket)
            )
            """,
            """
            CREATE TABLE buckets (
                app_id TEXT NOT NULL,
                owner TEXT NOT NULL,
                name TEXT NOT NULL,
                epoch BIGINT NOT NULL,
                last_sequence BIGINT NOT NULL,
                PRIMARY KEY (app_id, owner, name)
            )
            """,
            """
            CREATE TABLE objects (
                app_id TEXT NOT NULL,
                owner TEXT NOT NULL,
                bucket TEXT NOT NULL,
                key TEXT NOT NULL,
                version BIGINT NOT NULL,
                data TEXT NOT NULL,
                deleted BOOLEAN NOT NULL,
                member_stamps TEXT NOT NULL,
                sequence BIGINT NOT NULL,
                PRIMARY KEY (app_id, owner, bucket, key)
            )
            """,
            "CREATE INDEX objects_by_sequence ON objects (app_id, owner, bucket, sequence)",
            """
            CREATE TABLE versions (
                app_id TEXT NOT NULL,
                owner TEXT NOT NULL,
                bucket TEXT NOT NULL,
                key TEXT NOT NULL,
                version BIGINT NOT NULL,
                data TEXT NOT NULL,
                PRIMARY KEY (app_id, owner, bucket, key, version)
            )
            """,
            """
            CREATE TABLE changes (
                app_id TEXT NOT NULL,
                owner TEXT NOT NULL,
                bucket TEXT NOT NULL,
                sequence BIGINT NOT NULL,
                key TEXT NOT NULL,
                operation TEXT NOT NULL,
                source_version BIGINT,
                end_version BIGINT NOT NULL,
                diff TEXT,
                client_id TEXT NOT NULL,
                change_id TEXT NOT NULL,
                edit_time BIGINT,
                app_sequence BIGINT NOT NULL,
                origin TEXT NOT NULL,
                PRIMARY KEY (app_id, owner, bucket, sequence)
            )
            """,
            "CREATE INDEX changes_by_app_sequence ON changes (app_id, bucket, app_sequence)",
            // The change relay's catch-up reads an app's changes in commit order across buckets.
            "CREATE INDEX changes_by_app_position ON changes (app_id, app_sequence)",
            "CREATE UNIQUE INDEX changes_by_change_id ON changes (app_id, owner, bucket, change_id)",
            "CREATE INDEX changes_by_key ON changes (app_id, owner, bucket, key, end_version)",
        ],
        [
            """
            CREATE TABLE presence_claims (
                node_id TEXT NOT NULL,
                holder TEXT NOT NULL,
                app_id TEXT NOT NULL,
                owner TEXT NOT NULL,
                bucket TEXT NOT NULL,
                key TEXT NOT NULL,
                PRIMARY KEY (node_id, holder, app_id, owner, bucket, key)
            )
            """,
        ],
        ["ALTER TABLE apps ADD COLUMN peer_secret TEXT"],
        // Compact history kept by age (see SQLiteSchema's "v4"): the full copies of the last
        // versions become snapshots as they are, history starts at creation, and changes from
        // before count as committed now.
        [
            "ALTER TABLE versions RENAME TO snapshots",
            "ALTER TABLE changes ADD COLUMN intent TEXT",
            "ALTER TABLE changes ADD COLUMN merged_without_base BOOLEAN NOT NULL DEFAULT FALSE",
            "ALTER TABLE changes ADD COLUMN committed_at BIGINT NOT NULL DEFAULT 0",
            "UPDATE changes SET committed_at = (extract(epoch FROM clock_timestamp()) * 1000000000)::BIGINT",
            "ALTER TABLE objects ADD COLUMN history_from BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE buckets ADD COLUMN pruned_through BIGINT NOT NULL DEFAULT 0",
        ],
        // Security: canonical usernames (filled in by PostgresSecurityUpkeep, since NFC and
        // Unicode lowercasing are Swift's), token revocation, and the server key's id.
        [
            "ALTER TABLE users ADD COLUMN canonical_username TEXT",
            "ALTER TABLE users ADD COLUMN canonical_collision BOOLEAN NOT NULL DEFAULT false",
            "CREATE UNIQUE INDEX users_by_canonical_name ON users (app_id, canonical_username) WHERE NOT canonical_collision",
            "CREATE INDEX tokens_by_user ON tokens (app_id, user_id)",
            """
            CREATE TABLE security_state (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                server_key_id TEXT,
                token_revocations BIGINT NOT NULL
            )
            """,
            "INSERT INTO security_state (id, server_key_id, token_revocations) VALUES (1, NULL, 0)",
        ],
        // Spaces (see SQLiteSchema's "v5"): their buckets live in the bucket tables under the
        // owner `space:<id>`.
        [
            """
            CREATE TABLE spaces (
                app_id TEXT NOT NULL,
                id TEXT NOT NULL,
                name TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, id),
                UNIQUE (app_id, name)
            )
            """,
            """
            CREATE TABLE space_members (
                app_id TEXT NOT NULL,
                space_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                role TEXT NOT NULL,
                added_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, space_id, user_id)
            )
            """,
            "CREATE INDEX space_members_by_user ON space_members (app_id, user_id)",
            """
            CREATE TABLE space_invitations (
                app_id TEXT NOT NULL,
                space_id TEXT NOT NULL,
                canonical_email TEXT NOT NULL,
                email TEXT NOT NULL,
                role TEXT NOT NULL,
                invited_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, space_id, canonical_email)
            )
            """,
            "CREATE INDEX space_invitations_by_email ON space_invitations (app_id, canonical_email)",
        ],
        // Which objects referred to which blob, up to which version (see SQLiteSchema's "v6").
        [
            """
            CREATE TABLE blob_references (
                app_id TEXT NOT NULL,
                hash TEXT NOT NULL,
                owner TEXT NOT NULL,
                bucket TEXT NOT NULL,
                key TEXT NOT NULL,
                last_version BIGINT NOT NULL,
                PRIMARY KEY (app_id, hash, owner, bucket, key)
            )
            """,
        ],
        // Which node holds a connection of which user, for `user` presence across nodes.
        [
            """
            CREATE TABLE user_presence (
                node_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                PRIMARY KEY (node_id, user_id)
            )
            """,
            "CREATE INDEX user_presence_by_user ON user_presence (user_id)",
        ],
        // Space membership epochs (see SQLiteSchema's "v7").
        [
            "ALTER TABLE spaces ADD COLUMN membership_epoch BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE space_members ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0",
        ],
        // The change feed's indexes keyed by a bucket's number instead of its three names: each
        // of the feed's rows is in three indexes by bucket, and the names (app id, owner,
        // bucket) were most of each entry. A 4 KB note's 10,000 small edits took 5.98 MB of
        // history, 3.3 MB of it indexes (issue 23's target is 5 MB; `bench history`).
        [
            "ALTER TABLE buckets ADD COLUMN id BIGINT GENERATED BY DEFAULT AS IDENTITY",
            "CREATE UNIQUE INDEX buckets_by_id ON buckets (id)",
            // Every change's bucket has its row (a commit makes it first); made here for any
            // that would not, so that no change is left without a number.
            """
            INSERT INTO buckets (app_id, owner, name, epoch, last_sequence)
            SELECT app_id, owner, bucket, 1 + floor(random() * 4294967294)::BIGINT, MAX(sequence) FROM changes
            GROUP BY app_id, owner, bucket
            ON CONFLICT (app_id, owner, name) DO NOTHING
            """,
            "ALTER TABLE changes ADD COLUMN bucket_id BIGINT",
            "UPDATE changes c SET bucket_id = b.id FROM buckets b WHERE b.app_id = c.app_id AND b.owner = c.owner AND b.name = c.bucket",
            "ALTER TABLE changes ALTER COLUMN bucket_id SET NOT NULL",
            "ALTER TABLE changes DROP CONSTRAINT changes_pkey",
            // Feed rows are never updated, and reach these indexes in key order (a bucket's
            // sequence, an app's sequence): pages split where the feed ends, so they may be
            // filled whole rather than 90 %.
            "ALTER TABLE changes ADD PRIMARY KEY (bucket_id, sequence) WITH (fillfactor = 100)",
            "ALTER INDEX changes_by_app_sequence SET (fillfactor = 100)",
            "ALTER INDEX changes_by_app_position SET (fillfactor = 100)",
            "DROP INDEX changes_by_change_id",
            "CREATE UNIQUE INDEX changes_by_change_id ON changes (bucket_id, change_id)",
            "DROP INDEX changes_by_key",
            "CREATE INDEX changes_by_key ON changes (bucket_id, key, end_version)",
        ],
        // Each app's JWT sign-in settings (IdentityProviderSettings), as JSON.
        [
            "CREATE TABLE identity_providers (app_id TEXT PRIMARY KEY, settings TEXT NOT NULL, updated_at BIGINT NOT NULL)",
        ],
        PostgresWebhookSchema.migration,
        // Who made each change, and what a restore put back (see SQLiteSchema's "v10").
        [
            "ALTER TABLE changes ADD COLUMN author TEXT",
            "ALTER TABLE changes ADD COLUMN restored_from BIGINT",
            """
            UPDATE changes SET author = owner
            WHERE owner <> '' AND left(owner, 6) <> 'space:'
                AND client_id NOT IN ('lockstep-presence', 'lockstep-store') AND left(client_id, 8) <> 'console-'
            """,
        ],
    ]

    /// Takes the advisory lock that serializes migrations across the nodes of one schema, for
    /// the rest of the transaction. One lock per schema: stores in other schemas of the same
    /// database (tests, benchmarks, other deployments) never wait for each other.
    static func lockMigrations(_ connection: PostgresConnection, schema: String?, logger: Logger) async throws {
        try await connection.query(
            "SELECT pg_advisory_xact_lock(hashtext('lockstep migrations'), hashtext(\(schema ?? "public")))", logger: logger)
    }

    /// Applies the migrations not applied yet, up to the `through`-th (all of them by default;
    /// tests stop earlier to make a database as an older server left it).
    static func migrate(_ connection: PostgresConnection, schema: String?, through last: Int = migrations.count, logger: Logger) async throws {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await lockMigrations(connection, schema: schema, logger: logger)
            if let schema {
                // `schema` is a checked plain identifier (see `Configuration`), so quoting it is enough.
                try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: "\"\(schema)\"")", logger: logger)
            }
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS lockstep_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                logger: logger)
            var applied = Set<Int>()
            for try await version in try await connection.query("SELECT version FROM lockstep_migrations", logger: logger)
                .decode(Int.self)
            {
                applied.insert(version)
            }
            let unknown = applied.filter { $0 > migrations.count }.sorted()
            guard unknown.isEmpty else { throw StoreError.newerSchema(unknownMigrations: unknown.map(String.init)) }
            for (index, statements) in migrations.prefix(last).enumerated() where !applied.contains(index + 1) {
                for statement in statements { try await connection.query(statement, logger: logger) }
                try await connection.query("INSERT INTO lockstep_migrations (version) VALUES (\(index + 1))", logger: logger)
                logger.info("PostgreSQL store: applied migration \(index + 1)")
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }
}
