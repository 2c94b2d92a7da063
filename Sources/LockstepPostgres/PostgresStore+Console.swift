public import LockstepServer
import PostgresNIO

/// ``ConsoleStore`` on PostgreSQL: the same answers as the SQLite store's, in the same order
/// (`COLLATE "C"` compares by bytes, as SQLite does, whatever the database's locale).
extension PostgresStore {
    public func consoleUsers(appID: String, prefix: String, after: String?, limit: Int) async throws -> [ConsoleUser] {
        let canonicalPrefix = Username.canonical(prefix)
        return try await rows("""
            SELECT u.id, u.username, u.canonical_username, u.created_at, u.password_hash IS NOT NULL,
                (SELECT count(*) FROM tokens t WHERE t.app_id = u.app_id AND t.user_id = u.id)
            FROM users u
            WHERE u.app_id = \(appID) AND left(u.canonical_username, length(\(canonicalPrefix))) = \(canonicalPrefix)
                AND u.canonical_username COLLATE "C" > \(after ?? "")
            ORDER BY u.canonical_username COLLATE "C", u.id COLLATE "C" LIMIT \(limit)
            """).map { row in
            let (id, username, canonical, createdAt, hasPassword, tokens) = try row.decode((String, String, String, Int64, Bool, Int64).self)
            return ConsoleUser(
                id: id, username: username, canonicalUsername: canonical, createdAt: createdAt, hasPassword: hasPassword, tokens: Int(tokens))
        }
    }

    public func consoleBuckets(appID: String) async throws -> [ConsoleBucket] {
        try await rows("""
            SELECT b.owner, b.name, b.last_sequence,
                (SELECT count(*) FROM objects o WHERE o.app_id = b.app_id AND o.owner = b.owner AND o.bucket = b.name AND NOT o.deleted)
            FROM buckets b WHERE b.app_id = \(appID) ORDER BY b.name COLLATE "C", b.owner COLLATE "C"
            """).map { row in
            let (owner, name, lastSequence, objects) = try row.decode((String, String, Int64, Int64).self)
            return ConsoleBucket(ownerKey: owner, name: name, objects: Int(objects), lastSequence: lastSequence)
        }
    }

    public func consoleObjects(_ scope: BucketScope, prefix: String, after: String?, limit: Int) async throws -> [ConsoleObject] {
        try await rows("""
            SELECT key, version, deleted FROM objects
            WHERE app_id = \(scope.appID) AND owner = \(scope.ownerKey) AND bucket = \(scope.bucket)
                AND left(key, length(\(prefix))) = \(prefix) AND key COLLATE "C" > \(after ?? "")
            ORDER BY key COLLATE "C" LIMIT \(limit)
            """).map { row in
            let (key, version, deleted) = try row.decode((String, Int64, Bool).self)
            return ConsoleObject(key: key, version: Int(version), isDeleted: deleted)
        }
    }

    public func presenceClaims(appID: String) async throws -> [PresenceClaim] {
        try await rows("""
            SELECT node_id, holder, app_id, owner, bucket, key FROM presence_claims WHERE app_id = \(appID)
            ORDER BY bucket COLLATE "C", key COLLATE "C"
            """).compactMap { row in
            let (node, holder, appID, owner, bucket, key) = try row.decode((String, String, String, String, String, String).self)
            return PresenceClaim.Holder(holder).map { holder in
                PresenceClaim(nodeID: node, holder: holder, scope: BucketScope(appID: appID, ownerKey: owner, bucket: bucket), key: key)
            }
        }
    }

    /// The nodes are those whose change relay listens now (see ``orphanedPresenceClaims()``),
    /// this one included even while its relay reconnects.
    public func consoleSummary(appID: String) async throws -> ConsoleStoreSummary {
        let listening = try await rows("""
            SELECT DISTINCT substr(application_name, length('lockstep relay ') + 1) FROM pg_stat_activity
            WHERE application_name LIKE 'lockstep relay %'
            """).map { row in try row.decode(String.self) }
        let users = try await rows("SELECT count(*) FROM users WHERE app_id = \(appID)").first.map { try $0.decode(Int64.self) } ?? 0
        let changes = try await rows("SELECT last_sequence FROM apps WHERE id = \(appID)").first.map { try $0.decode(Int64.self) } ?? 0
        let nodes = Set(listening).union([nodeID]).sorted()
        return ConsoleStoreSummary(kind: "PostgreSQL", nodes: nodes, users: Int(users), changes: changes)
    }
}
