import GRDB
import LockstepCore

extension Replica {
    /// The changes to send now, as the server reads them.
    ///
    /// With `resend`, first every change sent before and never answered (after a reconnect),
    /// unchanged and with its ccid. Then the first queued change of each object that has no
    /// change in flight, highest priority first. A change that stands alone is frozen as the diff
    /// from the ghost to the local object at this moment, so every edit queued since the last
    /// send goes out as one change; others go out as their member edits (see ``OutboxRow``).
    func takeOutgoing(bucket: String, resend: Bool, limit: Int = 500) async throws -> [JSONValue] {
        try await database.write { db in
            var outgoing: [JSONValue] = []
            if resend {
                outgoing += try Row.fetchAll(
                    db.cachedStatement(sql: "SELECT * FROM outbox WHERE bucket = ? AND status = 'sent' ORDER BY id"), arguments: [bucket]
                ).map { try OutboxRow(row: $0).wireJSON }
            }
            // A dropped change lets the next one of its object go: look again until none is.
            var dropped = true
            while dropped && outgoing.count < limit {
                dropped = false
                let queued = try Row.fetchAll(
                    db.cachedStatement(sql: """
                        SELECT * FROM outbox AS q WHERE bucket = ? AND status = 'queued' AND waiting = 0 AND NOT EXISTS (
                            SELECT 1 FROM outbox AS s WHERE s.bucket = q.bucket AND s.key = q.key
                                AND (s.status IN ('sent', 'accepted') OR (s.status = 'queued' AND s.waiting = 0 AND s.id < q.id)))
                        ORDER BY priority DESC, id LIMIT ?
                        """),
                    arguments: [bucket, limit - outgoing.count]
                ).map(OutboxRow.init)
                for var row in queued {
                    switch try Self.freeze(db, &row) {
                    case .send: outgoing.append(row.wireJSON)
                    case .drop:
                        try OutboxRow.delete(db, id: row.id)
                        dropped = true
                    case .wait: continue
                    }
                }
            }
            return outgoing
        }
    }

    /// The sent changes with these ccids, as they are to be resent now.
    func outgoing(bucket: String, changeIDs: Set<String>) async throws -> [JSONValue] {
        try await database.read { db in
            try changeIDs.compactMap { changeID in
                try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT * FROM outbox WHERE bucket = ? AND ccid = ? AND status = 'sent'"),
                    arguments: [bucket, changeID]
                ).map { try OutboxRow(row: $0).wireJSON }
            }
        }
    }

    private enum Freezing {
        case send
        /// Nothing is left to send.
        case drop
        /// Not yet: a removal of an object the server has not seen, whose creation a peer carries;
        /// or a change whose members all wait for attachments to upload (see ``AttachmentHolds``).
        case wait
    }

    /// Fixes a queued change's payload against the ghost and marks it sent.
    private static func freeze(_ db: Database, _ row: inout OutboxRow) throws -> Freezing {
        let ghost = try LocalRecords.ghost(db, row.bucket, row.key)
        let local = try LocalRecords.local(db, row.bucket, row.key)
        let othersPending = try OutboxRow.all(db, row.bucket, row.key).count > 1
        let standsAlone = row.author == nil && !row.shared && !othersPending
        switch (row.operation, local) {
        case (.remove, _):
            guard ghost != nil else { return standsAlone ? .drop : .wait }
            row.expected = nil
        case (.modify, .present(let data)) where standsAlone:
            let base = ghost?.data ?? [:]
            let held = try AttachmentHolds.held(db, data, base: base)
            let sent = AttachmentHolds.withheld(held, from: data, base: base)
            var diff = ObjectDiff(from: base, to: sent)
            if !held.isEmpty {
                if diff.isEmpty { return try holdWhole(db, row) }
                try AttachmentHolds.holdBack(db, row, held: held, values: data)
            }
            if ghost != nil { try restateRemovals(db, row, base: base, sent: sent, into: &diff) }
            if diff.isEmpty && ghost != nil { return .drop }
            row.diff = diff
            row.sourceVersion = ghost?.version
            row.expected = sent
        case (.modify, _) where !standsAlone:
            guard ghost?.isDeleted != true else { return .drop }
            let base = ghost?.data ?? [:]
            let merged = try mergedEdits(db, row, local: local, into: base)
            let held = try AttachmentHolds.held(db, merged, base: base)
            let sent = AttachmentHolds.withheld(held, from: merged, base: base)
            var diff = ObjectDiff(from: base, to: sent)
            if !held.isEmpty {
                if diff.isEmpty { return try holdWhole(db, row) }
                try AttachmentHolds.holdBack(db, row, held: held, values: merged)
            }
            if ghost != nil { try restateRemovals(db, row, base: base, sent: sent, into: &diff) }
            if diff.isEmpty && ghost != nil { return .drop }
            row.diff = diff
            row.sourceVersion = ghost?.version
            row.expected = local.data.map { AttachmentHolds.withheld(held, from: $0, base: base) } ?? sent
        default:
            return .drop
        }
        row.status = .sent
        try db.executeCached(
            sql: "UPDATE outbox SET status = 'sent', diff = ?, source_version = ?, expected = ? WHERE id = ?",
            arguments: [row.diff.map { JSONSerializer().string($0.json) }, row.sourceVersion,
                        row.expected.map(LocalRecords.encode), row.id])
        return .send
    }

    /// Adds to `diff` each member `row` removed that the ghost lacks (another device's removal
    /// came in since) while `row` is still the member's latest writer here. The diff from the
    /// ghost has nothing for it, yet the removal is the member's latest write: sent, the server
    /// records it, and an earlier edit of the member that arrives after it loses to it there
    /// and on every device, where without it that edit would win over the other, earlier
    /// removal (PostgreSQL seed 1006 under load).
    private static func restateRemovals(
        _ db: Database, _ row: OutboxRow, base: JSONObject, sent: JSONObject, into diff: inout ObjectDiff
    ) throws {
        guard let removed = row.members?.removed, !removed.isEmpty else { return }
        let stamps = try MemberStamps.all(db, row.bucket, row.key)
        for member in removed where base[member] == nil && sent[member] == nil && diff.operations[member] == nil
            && stamps[member]?.changeID == row.changeID
        {
            diff.operations[member] = .remove
        }
    }

    /// Everything `row` would send waits for attachments to upload: the row waits, whole.
    private static func holdWhole(_ db: Database, _ row: OutboxRow) throws -> Freezing {
        try AttachmentHolds.wait(db, row)
        return .wait
    }

    /// The row's member edits merged into `base`: each member this row is still the latest
    /// writer of here, and each text edit that finds its place (see ``MemberEdits/merged(into:winning:)``).
    /// A member a later change (remote, or local or a peer's already sent) set whole since is
    /// left to that change. Once the object is deleted here, the whole edit goes, for the removal
    /// behind it to apply to.
    ///
    /// A member whose latest writer is a change still queued behind this one is sent all the
    /// same: that change goes out after this one and writes the member again. Leaving it out
    /// loses the later write when the server never sees this one from here but from another
    /// device that holds it (its author, or a peer): the later change, made against a base
    /// without this value, could not remove it (a removal of a member the base lacks is no
    /// edit at all), and this change, arriving after it, then set a value over a later removal.
    private static func mergedEdits(_ db: Database, _ row: OutboxRow, local: LocalState, into base: JSONObject) throws -> JSONObject {
        let edits = try row.memberEdits(db)
        guard case .present = local else { return edits.merged(into: base, winning: edits.members).object }
        let stamps = try MemberStamps.all(db, row.bucket, row.key)
        let queuedBehind = Set(try OutboxRow.all(db, row.bucket, row.key).filter { $0.id > row.id }.map(\.changeID))
        let winning = edits.members.filter { member in
            stamps[member].map { $0.changeID == row.changeID || queuedBehind.contains($0.changeID) } ?? false
        }
        return edits.merged(into: base, winning: winning).object
    }

    /// The HTTP answer to `POST /changes` said these changes (each by its ccids) were applied;
    /// their acknowledgements will come through the change feed, in order with everything else.
    /// One transaction for the whole answer.
    func markAccepted(bucket: String, _ changes: [[String]]) async throws {
        guard !changes.isEmpty else { return }
        try await database.write { db in
            for changeIDs in changes {
                if let row = try OutboxRow.withChangeID(db, bucket, changeIDs), row.status == .sent {
                    try OutboxRow.setStatus(db, id: row.id, .accepted)
                }
            }
        }
    }

    /// A server error for one of our changes, handled as Simperium clients do.
    static func takeError(_ db: Database, _ bucket: String, _ change: RemoteChange, into outcome: inout ReceiveOutcome) throws -> [BucketEvent] {
        guard let row = try OutboxRow.withChangeID(db, bucket, change.changeIDs), let code = change.error else { return [] }
        switch code {
        case 409:
            // A duplicate ccid: the server applied this change before. Fetch what it holds.
            try OutboxRow.setStatus(db, id: row.id, .accepted)
            outcome.resync.insert(row.key)
            return []
        case 412:
            // Nothing to change: as good as an acknowledgement.
            try OutboxRow.delete(db, id: row.id)
            outcome.sendMore = true
            guard try OutboxRow.all(db, bucket, row.key).isEmpty else { return [] }
            let old = try LocalRecords.local(db, bucket, row.key)
            let ghost = try LocalRecords.ghost(db, bucket, row.key)
            return try setLocal(db, bucket, row.key, from: old, to: state(of: ghost), origin: .remote).map { [$0] } ?? []
        case 404 where row.operation == .remove:
            // Removing what the server no longer has: done.
            try OutboxRow.delete(db, id: row.id)
            outcome.sendMore = true
            return []
        case 405 where row.fullData == nil && row.operation == .modify, 440 where row.fullData == nil && row.operation == .modify:
            return try resendWhole(db, row, into: &outcome)
        case 410:
            return try takeRemoved(db, row, code: code, message: change.message)
        case 424 where row.error != 424:
            // A reference to a blob this user has not uploaded (copied from another object):
            // upload it from the device's copy, if there is one, and send the change again once
            // that completes. A second refusal is final.
            guard try AttachmentHolds.uploadReferences(db, row) else {
                return try reject(db, row, code: code, message: change.message, into: &outcome)
            }
            outcome.sendMore = true
            return []
        case 429, 500..<600:
            outcome.retryLater = true
            return []
        default:
            return try reject(db, row, code: code, message: change.message, into: &outcome)
        }
    }

    /// After 405 (unknown source version) or 440 (the diff did not apply), send the whole
    /// object as `d` once, against the ghost, with the same ccid.
    private static func resendWhole(_ db: Database, _ row: OutboxRow, into outcome: inout ReceiveOutcome) throws -> [BucketEvent] {
        guard case .present(let data) = try LocalRecords.local(db, row.bucket, row.key) else {
            return try reject(db, row, code: row.error ?? 440, message: "the change could not be applied", into: &outcome)
        }
        let ghost = try LocalRecords.ghost(db, row.bucket, row.key)
        // The whole object carries every later edit too, so the queued change has nothing left;
        // but members waiting for uploads stay out of it, in a waiting change of their own.
        try db.executeCached(
            sql: "DELETE FROM outbox WHERE bucket = ? AND key = ? AND status = 'queued'", arguments: [row.bucket, row.key])
        let held = try AttachmentHolds.held(db, data, base: ghost?.data ?? [:])
        let whole = AttachmentHolds.withheld(held, from: data, base: ghost?.data ?? [:])
        if !held.isEmpty { try AttachmentHolds.holdBack(db, row, held: held, values: data) }
        try db.executeCached(
            sql: "UPDATE outbox SET full_data = ?, source_version = ?, expected = ? WHERE id = ?",
            arguments: [LocalRecords.encode(whole), ghost?.version, LocalRecords.encode(whole), row.id])
        outcome.sendMore = true
        outcome.resendFull.insert(row.changeID)
        return []
    }

    /// 410: the object was removed on the server, for good.
    private static func takeRemoved(_ db: Database, _ row: OutboxRow, code: Int, message: String?) throws -> [BucketEvent] {
        let ghost = try LocalRecords.ghost(db, row.bucket, row.key)
        try LocalRecords.setGhost(db, row.bucket, row.key, Ghost(version: ghost?.version ?? 0, data: [:], isDeleted: true))
        try OutboxRow.deleteAll(db, row.bucket, row.key)
        try db.executeCached(
            sql: "INSERT INTO outbox (bucket, key, ccid, operation, priority, status, edit_time, error, message, created_at) VALUES (?, ?, ?, ?, ?, 'rejected', ?, ?, ?, ?)",
            arguments: [row.bucket, row.key, row.changeID, row.operation.rawValue, row.priority.rawValue, row.editTime, code,
                        message, row.createdAt.timeIntervalSince1970])
        let old = try LocalRecords.local(db, row.bucket, row.key)
        return try setLocal(db, row.bucket, row.key, from: old, to: .removed, origin: .rejected(code: code, message: message))
            .map { [$0] } ?? []
    }

    /// The server refused the change: it stays listed as rejected, and the local object goes
    /// back to the ghost plus any edits made after the refused change.
    private static func reject(
        _ db: Database, _ row: OutboxRow, code: Int, message: String?, into outcome: inout ReceiveOutcome
    ) throws -> [BucketEvent] {
        try OutboxRow.setStatus(db, id: row.id, .rejected, error: code, message: message)
        outcome.sendMore = true
        let ghost = try LocalRecords.ghost(db, row.bucket, row.key)
        let old = try LocalRecords.local(db, row.bucket, row.key)
        var restored = state(of: ghost)
        let queued = try OutboxRow.all(db, row.bucket, row.key).filter { $0.status == .queued }
        if !queued.isEmpty, case .present(let local) = old {
            let replayed = replay(local, after: row.expected ?? ghost?.data ?? [:], onto: ghost?.data ?? [:])
            if ghost == nil || replayed != ghost?.data { restored = .present(replayed) }
        }
        if restored == state(of: ghost) {
            for change in queued { try OutboxRow.delete(db, id: change.id) }
        }
        return try setLocal(db, row.bucket, row.key, from: old, to: restored, origin: .rejected(code: code, message: message))
            .map { [$0] } ?? []
    }
}
