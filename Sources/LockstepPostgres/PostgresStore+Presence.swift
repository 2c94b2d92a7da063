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
    /// the node's id in its `application_name`. Claims of any other node are orphaned.
    public func orphanedPresenceClaims() async throws -> [PresenceClaim] {
        try await rows("""
            SELECT node_id, holder, app_id, owner, bucket, key FROM presence_claims
            WHERE node_id <> \(nodeID) AND node_id NOT IN (
                SELECT substr(application_name, length('lockstep relay ') + 1) FROM pg_stat_activity
                WHERE application_name LIKE 'lockstep relay %')
            """).compactMap { row in
            let (node, holder, appID, owner, bucket, key) = try row.decode((String, String, String, String, String, String).self)
            return PresenceClaim.Holder(holder).map { holder in
                PresenceClaim(nodeID: node, holder: holder, scope: BucketScope(appID: appID, ownerKey: owner, bucket: bucket), key: key)
            }
        }
    }
}
