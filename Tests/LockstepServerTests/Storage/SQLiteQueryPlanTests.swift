import Foundation
import GRDB
@testable import LockstepServer
import Testing

/// The lookups every group commit makes go straight to their rows, so that a commit's cost does
/// not grow with the history a bucket holds. A plan that reads a whole bucket passes every other
/// test; it shows only here, or as a server slowing down month by month.
@Suite("SQLite query plans of the commit path")
struct SQLiteQueryPlanTests {
    @Test func aGroupsChangeIDsAreLookedUpThroughTheirIndex() async throws {
        let plan = try await Self.plan(of: SQLiteStore.changesByIDSQL, arguments: ["app", "owner", "bucket", #"["c1","c2"]"#])
        // The ids outside, each a probe of the index inside: no scan of the changes.
        #expect(plan.count == 2, "\(plan)")
        #expect(plan.first?.hasPrefix("SCAN wanted VIRTUAL TABLE") == true, "\(plan)")
        #expect(plan.last == "SEARCH c USING INDEX changes_by_change_id (app_id=? AND owner=? AND bucket=? AND change_id=?)", "\(plan)")
    }

    @Test func anObjectIsReadThroughItsKey() async throws {
        let plan = try await Self.plan(of: SQLiteStore.objectSQL, arguments: ["app", "owner", "bucket", "key"])
        #expect(plan == ["SEARCH objects USING PRIMARY KEY (app_id=? AND owner=? AND bucket=? AND key=?)"], "\(plan)")
    }

    /// The details of `EXPLAIN QUERY PLAN` for `sql`, on a store with the server's schema.
    private static func plan(of sql: String, arguments: StatementArguments) async throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("lockstep.sqlite").path)
        return try await store.pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
        }
    }
}
