public import LockstepServer
import PostgresNIO

extension PostgresStore {
    public func insertPresenceClaim(_ claim: PresenceClaim) async throws {
        try await execute("""
            INSERT INTO presence_claims (node_id, holder, app_id, owner, bucket, key)
            VALUES (\(claim.nodeID), \(claim.holder.description), \(claim.scope.appID), \(claim.scope.ownerKey),
                \(claim.scope.bucket), \(claim.key))
            ON CONFLICT DO NOTHING
            """)
    }

    public func deletePresenceClaims(_ claims: [PresenceClaim]) async throws {
        for claim in claims {
            try await execute("""
                DELETE FROM presence_claims
                WHERE node_id = \(claim.nodeID) AND holder = \(claim.holder.description) AND app_id = \(claim.scope.appID)
                    AND owner = \(claim.scope.ownerKey) AND bucket = \(claim.scope.bucket) AND key = \(claim.key)
                """)
        }
    }

    /// A node is alive while its ``PostgresChangeRelay`` listens: the relay's connection carries
    /// the node's id in its `application_name`. Claims of any other node are orphaned, but for
    /// those held by a user who is connected to a node that is alive: they go when the user's
    /// last connection anywhere closes.
    public func orphanedPresenceClaims() async throws -> [PresenceClaim] {
        try await rows("""
            WITH live AS (SELECT \(nodeID)::text AS node_id UNION \(unescaped: Self.relayNodes))
            SELECT c.node_id, c.holder, c.app_id, c.owner, c.bucket, c.key FROM presence_claims c
            WHERE c.node_id NOT IN (SELECT node_id FROM live)
                AND NOT EXISTS (
                    SELECT 1 FROM user_presence u
                    WHERE 'user:' || u.user_id = c.holder AND u.node_id IN (SELECT node_id FROM live))
            """).compactMap(Self.claim)
    }

    public func markUserConnected(_ userID: String) async throws {
        try await execute("""
            INSERT INTO user_presence (node_id, user_id) VALUES (\(nodeID), \(userID)) ON CONFLICT DO NOTHING
            """)
    }

    public func markUserDisconnected(_ userID: String) async throws {
        try await execute("DELETE FROM user_presence WHERE node_id = \(nodeID) AND user_id = \(userID)")
    }

    public func isUserConnectedElsewhere(_ userID: String) async throws -> Bool {
        try await !rows("""
            WITH live AS (SELECT \(nodeID)::text AS node_id UNION \(unescaped: Self.relayNodes))
            SELECT 1 FROM user_presence
            WHERE user_id = \(userID) AND node_id <> \(nodeID) AND node_id IN (SELECT node_id FROM live)
            LIMIT 1
            """).isEmpty
    }

    public func presenceClaims(heldBy userID: String) async throws -> [PresenceClaim] {
        try await rows("""
            SELECT node_id, holder, app_id, owner, bucket, key FROM presence_claims WHERE holder = \(PresenceClaim.Holder.user(userID).description)
            """).compactMap(Self.claim)
    }

    /// The nodes whose relay listens (with the node asking, the nodes alive now).
    private static let relayNodes = """
        SELECT substr(application_name, length('lockstep relay ') + 1) FROM pg_stat_activity
        WHERE application_name LIKE 'lockstep relay %'
        """

    private static func claim(_ row: PostgresRow) throws -> PresenceClaim? {
        let (node, holder, appID, owner, bucket, key) = try row.decode((String, String, String, String, String, String).self)
        return PresenceClaim.Holder(holder).map { holder in
            PresenceClaim(nodeID: node, holder: holder, scope: BucketScope(appID: appID, ownerKey: owner, bucket: bucket), key: key)
        }
    }
}
