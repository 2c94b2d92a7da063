import GRDB

/// Other clients' changes this replica took from the server, by ccid, kept for buckets that
/// meet peers.
///
/// A change can reach a device twice: from the server, and later from a peer that carries it.
/// A whole value lands the same the second time, but a text insert would land again beside
/// itself, so a change the server brought first is only passed on when a peer brings it.
enum AppliedChanges {
    /// Whether changes of `bucket` are recorded: only once it has a peer key, since only then
    /// can a peer bring them.
    static func recorded(_ db: Database, _ bucket: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM meta WHERE name = ?"), arguments: ["peerkey:" + bucket]) ?? false
    }

    static func insert(_ db: Database, _ bucket: String, _ changeIDs: [String]) throws {
        for changeID in changeIDs {
            try db.executeCached(
                sql: "INSERT OR IGNORE INTO applied_changes (bucket, ccid) VALUES (?, ?)", arguments: [bucket, changeID])
        }
    }

    static func contains(_ db: Database, _ bucket: String, _ changeID: String) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM applied_changes WHERE bucket = ? AND ccid = ?"), arguments: [bucket, changeID]) ?? false
    }
}
