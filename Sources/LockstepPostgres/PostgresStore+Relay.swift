import LockstepServer
import PostgresNIO

/// The reads the change relay makes: changes by their place in an app's commit order.
extension PostgresStore {
    /// One change and its place in its app's commit order.
    struct RelayedChange: Sendable {
        var event: ChangeEvent
        var appSequence: Int64
    }

    /// Every app's latest commit position.
    func appPositions() async throws -> [String: Int64] {
        var positions: [String: Int64] = [:]
        for row in try await rows("SELECT id, last_sequence FROM apps") {
            let (id, position) = try row.decode((String, Int64).self)
            positions[id] = position
        }
        return positions
    }

    /// One change, ready to announce; `nil` if there is no such change.
    func relayedChange(_ scope: BucketScope, sequence: Int64) async throws -> ChangeEvent? {
        try await rows("""
            SELECT \(unescaped: Columns.change(of: "c")), b.epoch FROM changes c
            JOIN buckets b ON b.app_id = c.app_id AND b.owner = c.owner AND b.name = c.bucket
            WHERE c.app_id = \(scope.appID) AND c.owner = \(scope.ownerKey) AND c.bucket = \(scope.bucket)
                AND c.sequence = \(sequence)
            """).first.map { row in
            let change = try Columns.change(row)
            let epoch = try row.makeRandomAccess()[Columns.changeCount].decode(Int64.self)
            return ChangeEvent(
                scope: scope, change: change, version: ChangeVersion(epoch: UInt32(truncatingIfNeeded: epoch), sequence: change.sequence))
        }
    }

    /// Changes other nodes committed to an app at positions `after` (exclusive) through
    /// `through`, in commit order, at most `limit` of them.
    func changesFromOtherNodes(appID: String, after: Int64, through: Int64, limit: Int) async throws -> [RelayedChange] {
        try await rows("""
            SELECT \(unescaped: Columns.change(of: "c")), c.owner, c.bucket, b.epoch, c.app_sequence FROM changes c
            JOIN buckets b ON b.app_id = c.app_id AND b.owner = c.owner AND b.name = c.bucket
            WHERE c.app_id = \(appID) AND c.app_sequence > \(after) AND c.app_sequence <= \(through) AND c.origin <> \(nodeID)
            ORDER BY c.app_sequence LIMIT \(limit)
            """).map { row in
            let change = try Columns.change(row)
            let cells = row.makeRandomAccess()
            let scope = BucketScope(appID: appID, ownerKey: try cells[Columns.changeCount].decode(String.self), bucket: try cells[Columns.changeCount + 1].decode(String.self))
            let epoch = UInt32(truncatingIfNeeded: try cells[Columns.changeCount + 2].decode(Int64.self))
            return RelayedChange(
                event: ChangeEvent(scope: scope, change: change, version: ChangeVersion(epoch: epoch, sequence: change.sequence)),
                appSequence: try cells[Columns.changeCount + 3].decode(Int64.self))
        }
    }
}
