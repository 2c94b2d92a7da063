import GRDB

/// What opening a SQLite database does after its migrations, in one transaction: checks the
/// server key, gives accounts made before names were canonical their canonical name, and
/// seals secrets stored before sealing. Running it again finds nothing left to do.
struct SQLiteSecurityUpkeep {
    let serverKey: ServerKey

    func run(in pool: DatabasePool) throws {
        try pool.write { db in
            try checkServerKey(db)
            try canonicalizeUsernames(db)
            try sealPeerSecrets(db)
            try sealPasswordHashes(db)
        }
    }

    /// The first key to open the database is its key from then on.
    private func checkServerKey(_ db: Database) throws {
        if let expected = try String.fetchOne(db, sql: "SELECT server_key_id FROM security_state") {
            guard expected == serverKey.id else { throw StoreError.wrongServerKey(expected: expected, given: serverKey.id) }
            return
        }
        try db.execute(sql: "UPDATE security_state SET server_key_id = ?", arguments: [serverKey.id])
    }

    /// Oldest first, so that of accounts whose names collide the oldest keeps the name and the
    /// others are marked as collisions (reported at startup, still signing in by exact name).
    private func canonicalizeUsernames(_ db: Database) throws {
        let rows = try Row.fetchAll(
            db, sql: "SELECT app_id, id, username FROM users WHERE canonical_username IS NULL ORDER BY created_at, id")
        for row in rows {
            let appID: String = row["app_id"]
            let canonical = Username.canonical(row["username"])
            let taken = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE app_id = ? AND canonical_username = ? AND canonical_collision = 0)",
                arguments: [appID, canonical]) ?? false
            try db.execute(
                sql: "UPDATE users SET canonical_username = ?, canonical_collision = ? WHERE app_id = ? AND id = ?",
                arguments: [canonical, taken, appID, row["id"]])
        }
    }

    private func sealPeerSecrets(_ db: Database) throws {
        let rows = try Row.fetchAll(
            db, sql: "SELECT id, peer_secret FROM apps WHERE peer_secret IS NOT NULL AND peer_secret NOT LIKE ?",
            arguments: [ServerKey.sealedPrefix + "%"])
        for row in rows {
            let appID: String = row["id"]
            try db.execute(
                sql: "UPDATE apps SET peer_secret = ? WHERE id = ?",
                arguments: [serverKey.sealPeerSecret(row["peer_secret"], appID: appID), appID])
        }
    }

    private func sealPasswordHashes(_ db: Database) throws {
        let rows = try Row.fetchAll(
            db, sql: "SELECT app_id, id, password_hash FROM users WHERE password_hash IS NOT NULL AND password_hash NOT LIKE ?",
            arguments: [ServerKey.sealedPrefix + "%"])
        for row in rows {
            let appID: String = row["app_id"]
            let userID: String = row["id"]
            try db.execute(
                sql: "UPDATE users SET password_hash = ? WHERE app_id = ? AND id = ?",
                arguments: [serverKey.sealPasswordHash(row["password_hash"], appID: appID, userID: userID), appID, userID])
        }
    }
}
