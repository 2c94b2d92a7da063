import Foundation
import GRDB
@testable import LockstepServer
import Testing

@Suite("SQLite store durability")
struct SQLiteDurabilityTests {
    /// Every commit is synced to disk before it returns (`synchronous = FULL`), on a new file
    /// and on one opened again. GRDB sets NORMAL on the writer as it turns WAL on, after any
    /// `prepareDatabase`; in WAL mode NORMAL syncs only at checkpoints, so a change the server
    /// had acknowledged could be lost with the power.
    @Test func everyCommitIsFlushed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("lockstep.sqlite").path
        for _ in 0..<2 {
            let store = try SQLiteStore(path: path)
            let mode = try await store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
            #expect(mode == 2, "synchronous is \(mode.map(String.init) ?? "unknown"), not FULL (2)")
        }
    }
}
