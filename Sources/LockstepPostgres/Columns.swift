import LockstepCore
import LockstepServer
import PostgresNIO

/// The columns each record is read from, and how a row of them becomes the record.
///
/// Each list names its columns explicitly, in the order its decoder reads them, so a query
/// and its decoder cannot drift apart silently: a mismatch fails to decode.
enum Columns {
    static let app = "id, name, api_key_hash, admin_token_hash, created_at"

    static func app(_ row: PostgresRow) throws -> AppRecord {
        let (id, name, apiKeyHash, adminTokenHash, createdAt) = try row.decode((String, String, String, String, Int64).self)
        return AppRecord(id: id, name: name, apiKeyHash: apiKeyHash, adminTokenHash: adminTokenHash, createdAt: createdAt)
    }

    static let user = "app_id, id, username, password_hash, created_at"

    static func user(_ row: PostgresRow) throws -> UserRecord {
        let (appID, id, username, passwordHash, createdAt) = try row.decode((String, String, String, String?, Int64).self)
        return UserRecord(appID: appID, id: id, username: username, passwordHash: passwordHash, createdAt: createdAt)
    }

    static let token = "token_hash, app_id, user_id, created_at, expires_at"

    static func token(_ row: PostgresRow) throws -> TokenRecord {
        let (tokenHash, appID, userID, createdAt, expiresAt) = try row.decode((String, String, String, Int64, Int64?).self)
        return TokenRecord(tokenHash: tokenHash, appID: appID, userID: userID, createdAt: createdAt, expiresAt: expiresAt)
    }

    static let object = "key, version, data, deleted, member_stamps, sequence"

    static func object(_ row: PostgresRow) throws -> StoredObject {
        let (key, version, data, deleted, stamps, sequence) = try row.decode((String, Int, String, Bool, String, Int64).self)
        return StoredObject(
            key: key, version: version, data: try StoredValueCoding.object(data), isDeleted: deleted,
            memberStamps: try StoredValueCoding.stamps(stamps), sequence: sequence)
    }

    static let change = "sequence, key, operation, source_version, end_version, diff, client_id, change_id, edit_time"

    /// The change columns of table alias `table`, for joins.
    static func change(of table: String) -> String {
        change.split(separator: ", ").map { "\(table).\($0)" }.joined(separator: ", ")
    }

    /// Reads a change from the first nine columns of `row`.
    static func change(_ row: PostgresRow) throws -> ChangeRecord {
        let (sequence, key, operation, sourceVersion, endVersion, diff, clientID, changeID, editTime) = try row.decode(
            (Int64, String, String, Int?, Int, String?, String, String, Int64?).self)
        return ChangeRecord(
            sequence: sequence, key: key, operation: ChangeRecord.Operation(rawValue: operation) ?? .modify,
            sourceVersion: sourceVersion, endVersion: endVersion, diff: try StoredValueCoding.diff(diff), clientID: clientID,
            changeID: changeID, editTime: editTime)
    }
}
