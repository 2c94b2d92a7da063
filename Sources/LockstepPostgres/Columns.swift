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
        try object(row, from: 0)
    }

    /// The object columns of table alias `table`, for joins.
    static func object(of table: String) -> String {
        object.split(separator: ", ").map { "\(table).\($0)" }.joined(separator: ", ")
    }

    /// Reads an object from the six columns of `row` that start at index `first`.
    static func object(_ row: PostgresRow, from first: Int) throws -> StoredObject {
        let cells = row.makeRandomAccess()
        return StoredObject(
            key: try cells[first].decode(String.self), version: try cells[first + 1].decode(Int.self),
            data: try StoredValueCoding.object(try cells[first + 2].decode(String.self)), isDeleted: try cells[first + 3].decode(Bool.self),
            memberStamps: try StoredValueCoding.stamps(try cells[first + 4].decode(String.self)),
            sequence: try cells[first + 5].decode(Int64.self))
    }

    static let change = "sequence, key, operation, source_version, end_version, diff, client_id, change_id, edit_time, intent, merged_without_base"
    /// How many columns ``change`` names: a query's further columns start at this index.
    static let changeCount = 11

    /// The change columns of table alias `table`, for joins.
    static func change(of table: String) -> String {
        change.split(separator: ", ").map { "\(table).\($0)" }.joined(separator: ", ")
    }

    /// An entry of an app's feed: a row of ``change`` followed by `owner, app_sequence`.
    static func appFeedEntry(_ row: PostgresRow) throws -> AppFeedEntry {
        let cells = row.makeRandomAccess()
        return AppFeedEntry(
            ownerKey: try cells[changeCount].decode(String.self), appSequence: try cells[changeCount + 1].decode(Int64.self),
            change: try change(row))
    }

    /// Reads a change from the first ``changeCount`` columns of `row`.
    static func change(_ row: PostgresRow) throws -> ChangeRecord {
        let cells = row.makeRandomAccess()
        let (sequence, key, operation, sourceVersion, endVersion, diff, clientID, changeID, editTime) = try row.decode(
            (Int64, String, String, Int?, Int, String?, String, String, Int64?).self)
        return ChangeRecord(
            sequence: sequence, key: key, operation: ChangeRecord.Operation(rawValue: operation) ?? .modify,
            sourceVersion: sourceVersion, endVersion: endVersion, diff: try StoredValueCoding.diff(diff),
            intent: try StoredValueCoding.diff(try cells[9].decode(String?.self)), mergedWithoutBase: try cells[10].decode(Bool.self),
            clientID: clientID, changeID: changeID, editTime: editTime)
    }
}
