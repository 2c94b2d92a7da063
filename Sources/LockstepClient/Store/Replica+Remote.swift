import GRDB
import LockstepCore

/// What the sync session must do after the replica took in a batch of changes.
struct ReceiveOutcome: Sendable {
    /// Objects whose ghost fell out of step with the server: fetch them whole.
    var resync: Set<String> = []
    /// Changes were made sendable again (a full resend after 405/440, a rejection freeing a key).
    var sendMore = false
    /// Changes (by ccid) to send again at once as the whole object.
    var resendFull: Set<String> = []
    /// The server failed for a moment (5xx, 429): send the same changes again later.
    var retryLater = false
    /// The batch acknowledged at least one of our changes.
    var acknowledged = false
}

/// Changes the server sent for one bucket, in feed order.
struct ChangeBatch: Sendable {
    var bucket: String
    var changes: [RemoteChange]
}

extension Replica {
    /// Takes in changes from the server, each bucket's in feed order: acknowledgements of our
    /// changes, other devices' changes, and errors for our changes. All of them in one
    /// transaction, so a run of changes costs one flush, and a crash keeps all or none of them
    /// (each cursor moves with the changes it follows). One outcome per batch, in order.
    func receive(_ batches: [ChangeBatch]) async throws -> [ReceiveOutcome] {
        let clientID = clientID
        let (outcomes, taken) = try await database.write { db in
            var outcomes: [ReceiveOutcome] = []
            var events: [BucketEvent] = []
            for batch in batches {
                var outcome = ReceiveOutcome()
                events += try Self.take(db, batch, clientID: clientID, into: &outcome)
                outcomes.append(outcome)
            }
            return (outcomes, events)
        }
        events.publish(taken)
        if outcomes.contains(where: { $0.sendMore || $0.acknowledged }) { outboxChanged.signal() }
        return outcomes
    }

    private static func take(
        _ db: Database, _ batch: ChangeBatch, clientID: String, into outcome: inout ReceiveOutcome
    ) throws -> [BucketEvent] {
        let bucket = batch.bucket
        let meetsPeers = try AppliedChanges.recorded(db, bucket)
        var events: [BucketEvent] = []
        for change in batch.changes {
            if change.error != nil {
                events += try takeError(db, bucket, change, into: &outcome)
                continue
            }
            if let row = try OutboxRow.withChangeID(db, bucket, change.changeIDs) {
                events += try takeAcknowledgement(db, bucket, change, row, into: &outcome)
            } else {
                events += try takeRemote(db, bucket, change, clientID: clientID, into: &outcome)
                if meetsPeers { try AppliedChanges.insert(db, bucket, change.changeIDs) }
            }
            if let cursor = change.cursor { try LocalRecords.setCursor(db, bucket, cursor) }
        }
        return events
    }

    /// Our change came back applied: the ghost moves to the version it made.
    private static func takeAcknowledgement(
        _ db: Database, _ bucket: String, _ change: RemoteChange, _ row: OutboxRow, into outcome: inout ReceiveOutcome
    ) throws -> [BucketEvent] {
        outcome.acknowledged = true
        let key = change.key
        let ghost = try LocalRecords.ghost(db, bucket, key)
        if let ghost, change.endVersion <= ghost.version {
            // Already in the ghost (we fetched the object since).
            try OutboxRow.delete(db, id: row.id)
            return []
        }
        guard change.sourceVersion == ghost?.version, ghost?.isDeleted != true else {
            try OutboxRow.setStatus(db, id: row.id, .accepted)
            outcome.resync.insert(key)
            return []
        }
        let newGhost: Ghost
        switch change.operation {
        case .remove:
            newGhost = Ghost(version: change.endVersion, data: [:], isDeleted: true)
        case .modify:
            guard let data = try? change.diff.apply(to: ghost?.data ?? [:]) else {
                try OutboxRow.setStatus(db, id: row.id, .accepted)
                outcome.resync.insert(key)
                return []
            }
            newGhost = Ghost(version: change.endVersion, data: data, isDeleted: false)
        }
        try LocalRecords.setGhost(db, bucket, key, newGhost)
        try OutboxRow.delete(db, id: row.id)
        guard try OutboxRow.all(db, bucket, key).isEmpty else { return [] }
        // Nothing else pending: the local object is what the server holds (the server may have
        // merged our change with others').
        let old = try LocalRecords.local(db, bucket, key)
        return try setLocal(db, bucket, key, from: old, to: state(of: newGhost), origin: .remote).map { [$0] } ?? []
    }

    /// Another device's change: apply it to the ghost and rebase our pending edits over it.
    private static func takeRemote(
        _ db: Database, _ bucket: String, _ change: RemoteChange, clientID: String, into outcome: inout ReceiveOutcome
    ) throws -> [BucketEvent] {
        let key = change.key
        let ghost = try LocalRecords.ghost(db, bucket, key)
        if let ghost, change.endVersion <= ghost.version { return [] }
        let old = try LocalRecords.local(db, bucket, key)
        if change.operation == .remove {
            try LocalRecords.setGhost(db, bucket, key, Ghost(version: change.endVersion, data: [:], isDeleted: true))
            try OutboxRow.deleteAll(db, bucket, key)
            return try setLocal(db, bucket, key, from: old, to: .removed, origin: .remote).map { [$0] } ?? []
        }
        guard change.sourceVersion == ghost?.version, ghost?.isDeleted != true,
            let data = try? change.diff.apply(to: ghost?.data ?? [:])
        else {
            outcome.resync.insert(key)
            return []
        }
        let base = ghost?.data ?? [:]
        try LocalRecords.setGhost(db, bucket, key, Ghost(version: change.endVersion, data: data, isDeleted: false))
        let remoteStamp = MemberStamp(time: change.editTime, clientID: change.clientID, changeID: change.changeIDs.first ?? "")
        // A member the change set whole or removed is written by it even where that changed no
        // value (a removal of a member gone already): a pending edit of ours stamped earlier
        // loses to it (PostgreSQL seed 1006 under load).
        let written = MemberEdits(from: base, to: data).members.union(change.diff.operations.filter(\.value.setsWholeValue).keys)
        let remoteWon = try MemberStamps.raise(db, bucket, key, members: written) { _ in remoteStamp }
        let pending = try OutboxRow.all(db, bucket, key)
        guard !pending.isEmpty else {
            return try setLocal(db, bucket, key, from: old, to: .present(data), origin: .remote).map { [$0] } ?? []
        }
        // A queued change may have waited for this version (a removal of an object a peer created).
        outcome.sendMore = true
        let mine = EditStamp(time: pending.compactMap(\.editTime).max(), clientID: clientID)
        let winner = MergeRules.winner(incoming: mine, applied: change.stamp)
        for row in pending where row.status != .queued {
            if let expected = row.expected {
                try OutboxRow.setExpected(
                    db, id: row.id, rebase(expected, from: base, over: change.diff, onto: data, winner: winner))
            }
        }
        guard case .present(let local) = old else { return [] }
        // Our pending changes carry the time of their latest edit, not of each member's: the
        // member stamps say which side wrote each member last.
        var rebased = rebase(local, from: base, over: change.diff, onto: data, winner: winner, remoteWins: remoteWon)
        // Where pending changes of several writers disagree with the remote one, the member
        // stamps know who wrote last: for members the remote change set whole. An edit inside
        // a member (text, a nested object, a list) merged with ours above, as the server
        // merges them, and neither side's edit is lost.
        for member in remoteWon where change.diff.operations[member]?.setsWholeValue ?? true { rebased[member] = data[member] }
        // And where the remote change set a member whole but a pending change of ours wrote it
        // later, ours stays, even when an earlier remote change had made it already (the same
        // removal) and so left nothing of it pending to transform (PostgreSQL seed 2037).
        let pendingIDs = Set(pending.map(\.changeID))
        let stamps = try MemberStamps.all(db, bucket, key)
        for (member, operation) in change.diff.operations where operation.setsWholeValue && !remoteWon.contains(member) {
            guard let stamp = stamps[member], pendingIDs.contains(stamp.changeID) else { continue }
            rebased[member] = local[member]
        }
        return try setLocal(db, bucket, key, from: old, to: .present(rebased), origin: .remote).map { [$0] } ?? []
    }
}
