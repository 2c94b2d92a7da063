import GRDB

/// The local changes on their way to the server: look at them, and cancel those not yet sent.
///
/// The outbox lives in the local store, so nothing in it is lost when the app is killed or the
/// device restarts. Changes leave highest ``ChangePriority`` first; one change per object is in
/// flight at a time, and an object's changes reach the server in the order they were made.
///
/// ```swift
/// let waiting = try client.outbox.pending.count
/// for change in try client.outbox.pending where change.status == .queued {
///     try await client.outbox.cancel(change)      // the object goes back to its synced state
/// }
/// ```
///
/// Read it through ``LockstepClient/outbox``. See <doc:BuildingAnOfflineApp>.
public struct Outbox: Sendable {
    let replica: Replica

    /// Changes not yet acknowledged (queued or sent), oldest first. Read from the store;
    /// throws what SQLite threw.
    public var pending: [OutboxChange] {
        get throws { try changes(where: "status != 'rejected'") }
    }

    /// Changes the server refused, oldest first. Their objects were already rolled back.
    public var rejected: [OutboxChange] {
        get throws { try changes(where: "status = 'rejected'") }
    }

    private func changes(where condition: String) throws -> [OutboxChange] {
        try replica.database.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM outbox WHERE \(condition) ORDER BY id"))
                .map { try OutboxRow(row: $0).publicChange }
        }
    }

    /// Cancels a change that was not sent yet: the object goes back to what the server last
    /// acknowledged plus the change in flight, if any (an event tells listeners).
    /// Throws ``LockstepClientError/alreadySent(changeID:)`` when it is on its way already.
    public func cancel(_ change: OutboxChange) async throws {
        try await replica.cancel(changeID: change.changeID)
    }

    /// Forgets the changes the server refused, once the app has shown them: they no longer
    /// appear in ``rejected``. Their objects were rolled back already; this changes no object.
    public func dismissRejected() async throws {
        try await replica.database.write { db in try db.executeCached(sql: "DELETE FROM outbox WHERE status = 'rejected'") }
    }
}

extension Replica {
    func cancel(changeID: String) async throws {
        try await write { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM outbox WHERE ccid = ?"), arguments: [changeID])
                .map(OutboxRow.init)
            else { return [] }
            guard row.status == .queued else { throw LockstepClientError.alreadySent(changeID: changeID) }
            try OutboxRow.delete(db, id: row.id)
            let ghost = try LocalRecords.ghost(db, row.bucket, row.key)
            let inFlight = try OutboxRow.all(db, row.bucket, row.key).first
            var restored = Self.state(of: ghost)
            if let inFlight {
                restored = inFlight.operation == .remove ? .removed : inFlight.expected.map(LocalState.present) ?? restored
            }
            let old = try LocalRecords.local(db, row.bucket, row.key)
            return try Self.setLocal(db, row.bucket, row.key, from: old, to: restored, origin: .local).map { [$0] } ?? []
        }
    }
}
