import GRDB
public import LockstepCore

extension SQLiteStore {
    public func identityProvider(appID: String) async throws -> JSONObject? {
        try await pool.read { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT settings FROM identity_providers WHERE app_id = ?"), arguments: [appID])
                .map(StoredValueCoding.object)
        }
    }

    @discardableResult
    public func setIdentityProvider(appID: String, settings: JSONObject?, at time: Int64) async throws -> Bool {
        try await pool.write { db in
            let existed = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM identity_providers WHERE app_id = ?)", arguments: [appID]) ?? false
            if let settings {
                try db.execute(
                    sql: """
                        INSERT INTO identity_providers (app_id, settings, updated_at) VALUES (?, ?, ?)
                        ON CONFLICT (app_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at
                        """,
                    arguments: [appID, StoredValueCoding.text(settings), time])
            } else {
                try db.execute(sql: "DELETE FROM identity_providers WHERE app_id = ?", arguments: [appID])
            }
            return existed
        }
    }
}
