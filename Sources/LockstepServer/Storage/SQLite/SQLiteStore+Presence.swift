import GRDB

extension SQLiteStore {
    public func insertPresenceClaim(_ claim: PresenceClaim) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO presence_claims (node_id, holder, app_id, owner, bucket, key) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    claim.nodeID, claim.holder.description, claim.scope.appID, claim.scope.ownerKey, claim.scope.bucket, claim.key,
                ])
        }
    }

    public func deletePresenceClaims(_ claims: [PresenceClaim]) async throws {
        guard !claims.isEmpty else { return }
        try await pool.write { db in
            for claim in claims {
                try db.execute(
                    sql: """
                        DELETE FROM presence_claims
                        WHERE node_id = ? AND holder = ? AND app_id = ? AND owner = ? AND bucket = ? AND key = ?
                        """,
                    arguments: [
                        claim.nodeID, claim.holder.description, claim.scope.appID, claim.scope.ownerKey, claim.scope.bucket,
                        claim.key,
                    ])
            }
        }
    }

    /// One process serves an SQLite file, so every run but this one is gone, and its users'
    /// connections with it.
    public func orphanedPresenceClaims() async throws -> [PresenceClaim] {
        try await pool.read { [nodeID] db in
            try Row.fetchAll(db, sql: "SELECT * FROM presence_claims WHERE node_id <> ?", arguments: [nodeID]).compactMap(Self.claim)
        }
    }
}

/// `user` presence: one process serves an SQLite file, so no other server has connections of
/// anyone, and there is nothing to record (PostgreSQL nodes keep a table of them).
extension SQLiteStore {
    public func markUserConnected(_ userID: String) async throws {}

    public func markUserDisconnected(_ userID: String) async throws {}

    public func isUserConnectedElsewhere(_ userID: String) async throws -> Bool {
        false
    }

    public func presenceClaims(heldBy userID: String) async throws -> [PresenceClaim] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM presence_claims WHERE holder = ?", arguments: [PresenceClaim.Holder.user(userID).description])
                .compactMap(Self.claim)
        }
    }

    static func claim(_ row: Row) -> PresenceClaim? {
        PresenceClaim.Holder(row["holder"]).map { holder in
            PresenceClaim(
                nodeID: row["node_id"], holder: holder, scope: BucketScope(appID: row["app_id"], ownerKey: row["owner"], bucket: row["bucket"]),
                key: row["key"])
        }
    }
}
