import GRDB

extension SQLiteStore {
    public func consoleUsers(appID: String, prefix: String, after: String?, limit: Int) async throws -> [ConsoleUser] {
        let canonicalPrefix = Username.canonical(prefix)
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT u.id, u.username, u.canonical_username, u.created_at, u.password_hash IS NOT NULL AS has_password,
                        (SELECT count(*) FROM tokens t WHERE t.app_id = u.app_id AND t.user_id = u.id) AS tokens
                    FROM users u
                    WHERE u.app_id = ? AND substr(u.canonical_username, 1, length(?)) = ? AND u.canonical_username > ?
                    ORDER BY u.canonical_username, u.id LIMIT ?
                    """,
                arguments: [appID, canonicalPrefix, canonicalPrefix, after ?? "", limit]
            ).map { row in
                ConsoleUser(
                    id: row["id"], username: row["username"], canonicalUsername: row["canonical_username"], createdAt: row["created_at"],
                    hasPassword: row["has_password"], tokens: row["tokens"])
            }
        }
    }

    public func consoleBuckets(appID: String) async throws -> [ConsoleBucket] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT b.owner, b.name, \(Self.lastSequenceSQL(ofBucket: "b")) AS last_sequence,
                        (SELECT count(*) FROM objects o WHERE o.app_id = b.app_id AND o.owner = b.owner AND o.bucket = b.name AND NOT o.deleted)
                            AS objects
                    FROM buckets b WHERE b.app_id = ? ORDER BY b.name, b.owner
                    """,
                arguments: [appID]
            ).map { row in ConsoleBucket(ownerKey: row["owner"], name: row["name"], objects: row["objects"], lastSequence: row["last_sequence"]) }
        }
    }

    public func consoleObjects(_ scope: BucketScope, prefix: String, after: String?, limit: Int) async throws -> [ConsoleObject] {
        try await pool.read { db in
            // A missing `after` is the empty string, which every key (1 character or more) follows.
            try Row.fetchAll(
                db,
                sql: """
                    SELECT key, version, deleted FROM objects
                    WHERE app_id = ? AND owner = ? AND bucket = ? AND substr(key, 1, length(?)) = ? AND key > ?
                    ORDER BY key LIMIT ?
                    """,
                arguments: [scope.appID, scope.ownerKey, scope.bucket, prefix, prefix, after ?? "", limit]
            ).map { row in ConsoleObject(key: row["key"], version: row["version"], isDeleted: row["deleted"]) }
        }
    }

    public func presenceClaims(appID: String) async throws -> [PresenceClaim] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM presence_claims WHERE app_id = ? ORDER BY bucket, key", arguments: [appID]).compactMap { row in
                PresenceClaim.Holder(row["holder"]).map { holder in
                    PresenceClaim(
                        nodeID: row["node_id"], holder: holder,
                        scope: BucketScope(appID: row["app_id"], ownerKey: row["owner"], bucket: row["bucket"]), key: row["key"])
                }
            }
        }
    }

    public func consoleSummary(appID: String) async throws -> ConsoleStoreSummary {
        try await pool.read { [nodeID] db in
            let users = try Int.fetchOne(db, sql: "SELECT count(*) FROM users WHERE app_id = ?", arguments: [appID]) ?? 0
            let changes = try Self.storedAppSequence(db, appID) ?? 0
            // One process holds an SQLite file (DataDirectoryLock), so this node is every node.
            return ConsoleStoreSummary(kind: "SQLite", nodes: [nodeID], users: users, changes: changes)
        }
    }
}
