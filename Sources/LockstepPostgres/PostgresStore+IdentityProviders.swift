public import LockstepCore
import LockstepServer
import PostgresNIO

extension PostgresStore {
    public func identityProvider(appID: String) async throws -> JSONObject? {
        try await rows("SELECT settings FROM identity_providers WHERE app_id = \(appID)").first
            .map { row in try StoredValueCoding.object(try row.decode(String.self)) }
    }

    @discardableResult
    public func setIdentityProvider(appID: String, settings: JSONObject?, at time: Int64) async throws -> Bool {
        if let settings {
            // xmax = 0 on a row this statement inserted; an updated row has the old one's.
            let rows = try await rows("""
                INSERT INTO identity_providers (app_id, settings, updated_at) VALUES (\(appID), \(StoredValueCoding.text(settings)), \(time))
                ON CONFLICT (app_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at
                RETURNING (xmax <> 0) AS updated
                """)
            return try rows.first?.decode(Bool.self) ?? false
        }
        return try await !rows("DELETE FROM identity_providers WHERE app_id = \(appID) RETURNING app_id").isEmpty
    }
}
