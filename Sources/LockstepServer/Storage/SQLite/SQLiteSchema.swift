import GRDB

/// The embedded store's tables, created and upgraded by migrations.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE apps (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    api_key_hash TEXT NOT NULL,
                    admin_token_hash TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    last_sequence INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE users (
                    app_id TEXT NOT NULL,
                    id TEXT NOT NULL,
                    username TEXT NOT NULL,
                    password_hash TEXT,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (app_id, id),
                    UNIQUE (app_id, username)
                ) WITHOUT ROWID;
                CREATE TABLE tokens (
                    token_hash TEXT PRIMARY KEY,
                    app_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER
                ) WITHOUT ROWID;
                CREATE TABLE bucket_options (
                    app_id TEXT NOT NULL,
                    bucket TEXT NOT NULL,
                    options TEXT NOT NULL,
                    PRIMARY KEY (app_id, bucket)
                ) WITHOUT ROWID;
                CREATE TABLE buckets (
                    app_id TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    name TEXT NOT NULL,
                    epoch INTEGER NOT NULL,
                    last_sequence INTEGER NOT NULL,
                    PRIMARY KEY (app_id, owner, name)
                ) WITHOUT ROWID;
                CREATE TABLE objects (
                    app_id TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    bucket TEXT NOT NULL,
                    key TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    data TEXT NOT NULL,
                    deleted INTEGER NOT NULL,
                    member_stamps TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    PRIMARY KEY (app_id, owner, bucket, key)
                ) WITHOUT ROWID;
                CREATE INDEX objects_by_sequence ON objects (app_id, owner, bucket, sequence);
                CREATE TABLE versions (
                    app_id TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    bucket TEXT NOT NULL,
                    key TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    data TEXT NOT NULL,
                    PRIMARY KEY (app_id, owner, bucket, key, version)
                ) WITHOUT ROWID;
                CREATE TABLE changes (
                    app_id TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    bucket TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    key TEXT NOT NULL,
                    operation TEXT NOT NULL,
                    source_version INTEGER,
                    end_version INTEGER NOT NULL,
                    diff TEXT,
                    client_id TEXT NOT NULL,
                    change_id TEXT NOT NULL,
                    edit_time INTEGER,
                    app_sequence INTEGER NOT NULL,
                    PRIMARY KEY (app_id, owner, bucket, sequence)
                ) WITHOUT ROWID;
                CREATE INDEX changes_by_app_sequence ON changes (app_id, bucket, app_sequence);
                CREATE UNIQUE INDEX changes_by_change_id ON changes (app_id, owner, bucket, change_id);
                CREATE INDEX changes_by_key ON changes (app_id, owner, bucket, key, end_version);
                """)
        }
        migrator.registerMigration("v2: presence claims") { db in
            try db.execute(sql: """
                CREATE TABLE presence_claims (
                    node_id TEXT NOT NULL,
                    holder TEXT NOT NULL,
                    app_id TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    bucket TEXT NOT NULL,
                    key TEXT NOT NULL,
                    PRIMARY KEY (node_id, holder, app_id, owner, bucket, key)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v3: peer secrets") { db in
            try db.execute(sql: "ALTER TABLE apps ADD COLUMN peer_secret TEXT")
        }
        migrator.registerMigration("v4: compact history kept by age") { db in
            // Versions were full copies of the last 60; changes were kept in full. Each change's
            // diff rebuilds its version from the one before, so the copies become snapshots as
            // they are (every existing version stays readable) and history starts at creation.
            // The pruner thins them out as objects move on.
            try db.execute(sql: """
                ALTER TABLE versions RENAME TO snapshots;
                ALTER TABLE changes ADD COLUMN intent TEXT;
                ALTER TABLE changes ADD COLUMN merged_without_base INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE changes ADD COLUMN committed_at INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE objects ADD COLUMN history_from INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE buckets ADD COLUMN pruned_through INTEGER NOT NULL DEFAULT 0;
                """)
            // Changes from before this migration count as committed now: they are kept a whole
            // retention period from here on.
            try db.execute(sql: "UPDATE changes SET committed_at = ?", arguments: [ServerClockSource().now()])
        }
        migrator.registerMigration("v4 security: canonical usernames, token revocation, server key") { db in
            // Canonical names are filled in, and collisions marked, by SQLiteSecurityUpkeep:
            // NFC and Unicode lowercasing are Swift's, not SQL's.
            try db.execute(sql: """
                ALTER TABLE users ADD COLUMN canonical_username TEXT;
                ALTER TABLE users ADD COLUMN canonical_collision INTEGER NOT NULL DEFAULT 0;
                CREATE UNIQUE INDEX users_by_canonical_name ON users (app_id, canonical_username) WHERE canonical_collision = 0;
                CREATE INDEX tokens_by_user ON tokens (app_id, user_id);
                CREATE TABLE security_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    server_key_id TEXT,
                    token_revocations INTEGER NOT NULL
                );
                INSERT INTO security_state (id, server_key_id, token_revocations) VALUES (1, NULL, 0);
                """)
        }
        migrator.registerMigration("v5: spaces") { db in
            // A space's buckets live in the bucket tables under the owner `space:<id>`.
            try db.execute(sql: """
                CREATE TABLE spaces (
                    app_id TEXT NOT NULL,
                    id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (app_id, id),
                    UNIQUE (app_id, name)
                ) WITHOUT ROWID;
                CREATE TABLE space_members (
                    app_id TEXT NOT NULL,
                    space_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    role TEXT NOT NULL,
                    added_at INTEGER NOT NULL,
                    PRIMARY KEY (app_id, space_id, user_id)
                ) WITHOUT ROWID;
                CREATE INDEX space_members_by_user ON space_members (app_id, user_id);
                CREATE TABLE space_invitations (
                    app_id TEXT NOT NULL,
                    space_id TEXT NOT NULL,
                    canonical_email TEXT NOT NULL,
                    email TEXT NOT NULL,
                    role TEXT NOT NULL,
                    invited_at INTEGER NOT NULL,
                    PRIMARY KEY (app_id, space_id, canonical_email)
                ) WITHOUT ROWID;
                CREATE INDEX space_invitations_by_email ON space_invitations (app_id, canonical_email);
                """)
        }
        migrator.registerMigration("v6: blob references") { db in
            // Which objects referred to which blob, up to which version (BlobReferenceRecord).
            try db.execute(sql: """
                CREATE TABLE blob_references (
                    app_id TEXT NOT NULL,
                    hash TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    bucket TEXT NOT NULL,
                    key TEXT NOT NULL,
                    last_version INTEGER NOT NULL,
                    PRIMARY KEY (app_id, hash, owner, bucket, key)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v7: space membership epochs") { db in
            // Each change to a space's members moves its epoch on; a member keeps the epoch of
            // their role, so a late revocation ends only the channels opened before it.
            try db.execute(sql: """
                ALTER TABLE spaces ADD COLUMN membership_epoch INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE space_members ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v8: identity providers") { db in
            // Each app's JWT sign-in settings (IdentityProviderSettings), as JSON.
            try db.execute(sql: """
                CREATE TABLE identity_providers (
                    app_id TEXT PRIMARY KEY,
                    settings TEXT NOT NULL,
                    updated_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v9: webhooks") { db in try SQLiteWebhookSchema.create(db) }
        migrator.registerMigration("v10: version authors") { db in
            // Each change keeps who made it (``ChangeAuthor/stored``) and, for a restore, the
            // version it put back. Changes from before say only their client: in a user's own
            // bucket they are that user's, but for what the server and the console wrote
            // (their client ids), which stay unknown, as everything in shared and spaces'
            // buckets does. (The admin token writing a user's bucket through
            // `X-Simperium-User` under another client id was not told apart, and is counted
            // as the user's.)
            try db.execute(sql: """
                ALTER TABLE changes ADD COLUMN author TEXT;
                ALTER TABLE changes ADD COLUMN restored_from INTEGER;
                UPDATE changes SET author = owner
                WHERE owner != '' AND substr(owner, 1, 6) != 'space:'
                    AND client_id NOT IN ('lockstep-presence', 'lockstep-store') AND substr(client_id, 1, 8) != 'console-';
                """)
        }
        return migrator
    }

    /// Throws ``StoreError/newerSchema(unknownMigrations:)`` when a newer Lockstep migrated the
    /// database: its tables may mean what this version cannot read, and migrating it "back"
    /// is not a thing.
    static func refuseNewer(_ pool: DatabasePool) throws {
        let unknown = try pool.read(unknownMigrations)
        guard unknown.isEmpty else { throw StoreError.newerSchema(unknownMigrations: unknown) }
    }

    /// The migrations the database has been through that this version does not know.
    static func unknownMigrations(_ db: Database) throws -> [String] {
        guard try db.tableExists("grdb_migrations") else { return [] }
        let known = Set(migrator.migrations)
        return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").filter { !known.contains($0) }
    }
}
