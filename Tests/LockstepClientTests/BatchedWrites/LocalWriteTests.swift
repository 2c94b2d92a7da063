import Foundation
import GRDB
@testable import LockstepClient
import LockstepCore
import Testing

/// Local writes: each flushed before it returns, and handed to peers in its own transaction
/// while a peer link is open.
@Suite("Local writes")
struct LocalWriteTests {
    /// Nothing listens here: the client stays offline.
    let nowhere = URL(string: "http://127.0.0.1:9")!

    /// GRDB sets `synchronous = NORMAL` on the writer as it turns WAL on, after any
    /// `prepareDatabase`; in WAL mode NORMAL syncs only at checkpoints, so a put that had
    /// returned could be lost with the power.
    @Test("every commit is synced to disk, in a new store and in one opened again")
    func everyCommitIsFlushed() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        for _ in 0..<2 {
            let client = try LockstepClient(storeDirectory: store, server: nowhere, app: "app", token: "t")
            let mode = try await client.replica.database.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
            #expect(mode == 2, "synchronous is \(mode.map(String.init) ?? "unknown"), not FULL (2)")
            await client.close()
        }
    }

    @Test("while a peer link is open, a put logs its change for peers before it returns; without one, edits coalesce")
    func peerLogFoldedIntoThePut() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try LockstepClient(storeDirectory: store, server: nowhere, app: "app", token: "t")
        let items = try client.bucket("items")
        let replica = client.replica

        try await items.put("a", ["n": 1])
        try await items.update("a") { $0["n"] = 2 }
        #expect(try client.outbox.pending.count == 1, "unsent edits to one object coalesce")
        #expect(try await replica.peerChanges(bucket: "items", after: 0, excludingSource: "", limit: 10).isEmpty)

        // A link opens (no session runs here: only the writes themselves can log).
        replica.peerLinks.opened(bucket: "items")
        try await items.update("a") { $0["n"] = 3 }
        try await items.put("b", ["n": 1])
        try await items.delete("b")
        let logged = try await replica.peerChanges(bucket: "items", after: 0, excludingSource: "", limit: 10)
        let pending = try client.outbox.pending
        #expect(logged.map(\.change.key) == ["a", "b", "b"], "the row queued before the link too, with the first edit after it")
        #expect(logged.map(\.change.changeID) == pending.map(\.changeID))
        #expect(logged.last?.change.operation == .remove)
        let unshared = try await replica.database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE shared = 0")
        }
        #expect(unshared == 0)

        replica.peerLinks.closed(bucket: "items")
        try await items.put("c", ["n": 1])
        #expect(try await replica.peerChanges(bucket: "items", after: 0, excludingSource: "", limit: 10).count == 3)
        await client.close()
    }
}
