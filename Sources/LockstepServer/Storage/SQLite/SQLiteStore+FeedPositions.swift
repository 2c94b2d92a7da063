import GRDB
import LockstepCore
import Synchronization

/// Where a bucket's feed and an app's commit order stand, read from the changes themselves
/// instead of from a row that every commit rewrites.
///
/// A commit writes every B-tree page it modifies to the WAL, 4 KiB each, checksummed. The
/// bucket's and the app's `last_sequence` rows were two of the eight pages of a one-change
/// commit. Neither is written any more:
/// - A bucket's last sequence is its latest change's, found at the end of the changes' primary
///   key. History pruning never deletes an object's latest change, so the bucket's latest
///   change, the latest of its object, stays.
/// - An app's last position is the greatest of its buckets' latest, found by stepping through
///   the bucket names of the `changes_by_app_sequence` index; the writer, the only one that
///   needs it, reads it once per app and then keeps it (``AppSequences``).
///
/// The rows' `last_sequence` columns remain floors: what older databases wrote there, and what
/// deleting a space (the one thing that deletes an app's latest changes) keeps there, so that
/// no position is ever handed out twice.
extension SQLiteStore {
    /// `epoch, last sequence` of the bucket `?, ?, ?` (app, owner, name).
    static let bucketPositionSQL =
        "SELECT b.epoch, \(lastSequenceSQL(ofBucket: "b")) FROM buckets b WHERE b.app_id = ? AND b.owner = ? AND b.name = ?"

    /// The last sequence of bucket `alias` (a row of `buckets`), as a column of a query over buckets.
    static func lastSequenceSQL(ofBucket alias: String) -> String {
        """
        max(\(alias).last_sequence, IFNULL((SELECT MAX(c.sequence) FROM changes c
            WHERE c.app_id = \(alias).app_id AND c.owner = \(alias).owner AND c.bucket = \(alias).name), 0))
        """
    }

    /// The app's last position in its commit order, as the database holds it; `nil` for an app
    /// without a row.
    static func storedAppSequence(_ db: Database, _ appID: String) throws -> Int64? {
        guard let floor = try Int64.fetchOne(db.cachedStatement(sql: "SELECT last_sequence FROM apps WHERE id = ?"), arguments: [appID])
        else { return nil }
        // One index probe per bucket name, however many changes each holds.
        let latest = try Int64.fetchOne(
            db.cachedStatement(sql: """
                WITH RECURSIVE names(bucket) AS (
                    SELECT (SELECT MIN(bucket) FROM changes WHERE app_id = ?1)
                    UNION ALL
                    SELECT (SELECT MIN(bucket) FROM changes WHERE app_id = ?1 AND bucket > names.bucket)
                    FROM names WHERE names.bucket IS NOT NULL
                )
                SELECT MAX((SELECT MAX(app_sequence) FROM changes WHERE app_id = ?1 AND bucket = names.bucket))
                FROM names WHERE names.bucket IS NOT NULL
                """),
            arguments: [appID])
        return max(floor, latest ?? 0)
    }

    /// The app's last position for the writer: kept once read, advanced by each commit.
    func appSequence(_ db: Database, _ appID: String) throws -> Int64? {
        if let known = appSequences.last(of: appID) { return known }
        guard let stored = try Self.storedAppSequence(db, appID) else { return nil }
        appSequences.advance(appID, to: stored)
        return stored
    }

    /// Keeps the app's current position in its row: before deleting changes that may be its latest.
    func keepAppSequence(_ db: Database, _ appID: String) throws {
        guard let last = try appSequence(db, appID) else { return }
        try db.execute(sql: "UPDATE apps SET last_sequence = max(last_sequence, ?) WHERE id = ?", arguments: [last, appID])
    }
}

/// The apps' last positions in their commit order, as the store's one writer advanced them.
///
/// Read and advanced inside write transactions only, which run one at a time. A commit that
/// fails after advancing leaves a gap in the order, never a position used twice.
final class AppSequences: Sendable {
    private let last = Mutex<[String: Int64]>([:])

    func last(of appID: String) -> Int64? {
        last.withLock { $0[appID] }
    }

    func advance(_ appID: String, to sequence: Int64) {
        last.withLock { last in last[appID] = max(last[appID] ?? sequence, sequence) }
    }
}
