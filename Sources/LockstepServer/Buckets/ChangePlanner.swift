package import LockstepCore

/// Decides what one change does to one object, by the merge rules.
///
/// Pure and synchronous: a store's writer calls it inside its transaction, with the object as
/// the changes before it (in the store and earlier in the same group) left it, so that what is
/// planned and what is committed are one state.
///
/// - A change against the current version applies as it is.
/// - A change against an older, retained version is rebased over every change since, by what
///   those changes meant (``ChangeRecord/rebaseDiff``): increments add, list inserts shift,
///   text merges, and colliding edits go to the later edit stamp (``MergeRules``).
/// - A change whose base version is no longer retained (older than the history limits) is
///   merged member by member when it carries the whole object (`d`), or when its diff only
///   sets, removes or increments top-level members: each member it changes takes the new value
///   where the change's edit stamp is later than that member's last write
///   (``MergeRules/mergeMembers(_:named:into:stamp:stamps:)``). The change record says so
///   (``ChangeRecord/mergedWithoutBase``). Anything else gets `405`.
package struct ChangePlanner: Sendable {
    package var limits: Limits

    package init(limits: Limits) {
        self.limits = limits
    }

    /// What a change does: the object after it, and the change as the feed records it. Their
    /// feed sequence is the store's to assign.
    package struct Plan: Sendable {
        package var object: StoredObject
        package var change: ChangeRecord
        /// The blobs the object refers to after the change.
        package var blobs: [BlobHash] = []
        /// The object's data as the store keeps it (``StoredValueCoding``), made once: an edit's
        /// size check needs it too.
        package var storedData: String
    }

    /// Who may add references to which blobs, for one change (see ``BlobReferenceChecking``).
    package struct References {
        package var checker: any BlobReferenceChecking
        package var appID: String
        package var author: ChangeAuthor

        package init(checker: any BlobReferenceChecking, appID: String, author: ChangeAuthor) {
            self.checker = checker
            self.appID = appID
            self.author = author
        }
    }

    /// The version whose data and later changes planning `change` needs: its source version,
    /// when that is older than `current`'s; `nil` when the current object is all it needs.
    package func historyNeeded(for change: IncomingChange, current: StoredObject?) -> Int? {
        guard let current, !current.isDeleted, let sourceVersion = change.sourceVersion else { return nil }
        switch change.operation {
        case .remove: return nil
        case .modify, .merge: return (0..<current.version).contains(sourceVersion) ? sourceVersion : nil
        }
    }

    /// Plans `change` against `current` (`nil`: no such object yet). `history`, when the change
    /// needs one (``historyNeeded(for:current:)``), must reach from the source version to the
    /// current one; `nil` means that part of the object's history is no longer retained.
    package func plan(_ change: IncomingChange, current: StoredObject?, history: ObjectTimeline?, references: References? = nil)
        throws(ChangeRejection) -> Plan
    {
        if let current, current.isDeleted {
            if case .remove = change.operation {
                throw ChangeRejection(.notFound, "object \(change.key) was already removed")
            }
            throw ChangeRejection(.removed, "object \(change.key) was removed; removed objects never come back")
        }
        switch change.operation {
        case .remove:
            guard let current else { throw ChangeRejection(.notFound, "object \(change.key) does not exist") }
            return plan(change, current: current, data: [:], diff: nil, intent: nil, isDeleted: true, stamps: current.memberStamps)
        case .modify(let diff, let wholeObject):
            return try planEdit(
                ObjectEdit(diff: diff, wholeObject: wholeObject, current: current?.data, key: change.key), change, current, history, references)
        case .merge(let members):
            return try planEdit(.members(members), change, current, history, references)
        }
    }

    private func planEdit(
        _ edit: ObjectEdit, _ change: IncomingChange, _ current: StoredObject?, _ history: ObjectTimeline?, _ references: References?
    ) throws(ChangeRejection) -> Plan {
        let currentVersion = current?.version ?? 0
        if current == nil, let sourceVersion = change.sourceVersion, sourceVersion > 0 {
            throw ChangeRejection(.notFound, "object \(change.key) does not exist, so version \(sourceVersion) cannot be the base")
        }
        let sourceVersion = change.sourceVersion ?? currentVersion
        guard sourceVersion >= 0, sourceVersion <= currentVersion else {
            throw ChangeRejection(.badVersion, "version \(sourceVersion) of \(change.key) does not exist; the latest is \(currentVersion)")
        }
        let currentData = current?.data ?? [:]
        var intent: ObjectDiff
        var mergedWithoutBase = false
        var baseData: JSONObject?
        // The object as the change leaves it, when finding the intent already applied it.
        var applied: JSONObject?
        do {
            if sourceVersion == currentVersion {
                let edited = try edit.applied(to: currentData)
                intent = edited.diff
                applied = edited.result
            } else if let history, history.reaches(sourceVersion), history.latestVersion == currentVersion,
                let base = try history.data(at: sourceVersion)
            {
                baseData = base
                let diff = try edit.applied(to: base).diff
                intent = try MergeRules.rebase(
                    diff, stamp: change.stamp, base: base,
                    over: history.changes(after: sourceVersion).map { ($0.rebaseDiff ?? ObjectDiff(), $0.stamp) })
            } else if let merged = try edit.mergedWithoutBase(into: currentData, stamp: change.stamp, stamps: current?.memberStamps ?? [:]) {
                intent = merged
                mergedWithoutBase = true
            } else {
                throw ChangeRejection(
                    .badVersion,
                    "version \(sourceVersion) of \(change.key) is no longer retained (the latest is \(currentVersion)); send the whole object as \"d\"")
            }
        } catch let rejection as ChangeRejection {
            throw rejection
        } catch {
            throw ChangeRejection(.invalidDiff, "the diff does not apply: \(error)")
        }

        let data: JSONObject
        if let applied {
            data = applied
        } else {
            do {
                data = try intent.apply(to: currentData)
            } catch {
                throw ChangeRejection(.invalidDiff, "the rebased diff does not apply: \(error)")
            }
        }
        guard current == nil || data != currentData || Self.removesAgain(intent, from: currentData, stamp: change.stamp) else {
            throw ChangeRejection(.emptyChange, "the change leaves \(change.key) as it is")
        }
        let storedData = StoredValueCoding.text(data)
        let size = storedData.utf8.count
        guard size <= limits.maximumObjectBytes else {
            throw ChangeRejection(.tooLarge, "object \(change.key) would be \(size) bytes; the limit is \(limits.maximumObjectBytes)")
        }
        let blobs = BlobReference.hashes(in: data)
        if let references, !blobs.isEmpty {
            try check(blobs, of: change.key, against: [currentData, baseData ?? [:]], references)
        }
        // What goes out must apply on every client, so increments and list diffs travel as the
        // equivalent replace and text operations; the record keeps what they meant.
        let wire = intent.isPortable ? intent : ObjectDiff(from: currentData, to: data)
        var stamps = current?.memberStamps ?? [:]
        for name in intent.operations.keys { stamps[name] = change.stamp }
        stamps = Self.stamps(stamps, keepingRemovalsUpTo: limits.removedMemberStampsPerObject, in: data)
        var plan = plan(
            change, current: current, data: data, storedData: storedData, diff: wire, intent: wire == intent ? nil : intent,
            isDeleted: false, stamps: stamps, mergedWithoutBase: mergedWithoutBase)
        plan.blobs = blobs.sorted()
        return plan
    }

    /// Whether a change that leaves the data as it is is still a write to record: it removes,
    /// at an edit time, a member that is gone already. Removed by an earlier edit, the member's
    /// latest write is now this removal, and an edit made between the two that arrives later
    /// (from a device that was offline) must lose to it, on this server's rebase and on every
    /// device that stamps the member from the feed (PostgreSQL seed 1006 under load). A change
    /// without an edit time is ordered by arrival, and a no-op from it stays `412`.
    static func removesAgain(_ intent: ObjectDiff, from current: JSONObject, stamp: EditStamp) -> Bool {
        guard stamp.time != nil else { return false }
        return intent.operations.contains { name, operation in
            if case .remove = operation { current[name] == nil } else { false }
        }
    }

    /// The stamps of `data`'s members, and of the latest `removals` members gone from it: a
    /// removal's stamp outlives the history that holds it, so that a set made offline before the
    /// removal, arriving once its base is pruned, loses to it by merge rule 5 as it would have
    /// by rule 2. Removals without an edit time count as the oldest.
    static func stamps(_ stamps: [String: EditStamp], keepingRemovalsUpTo removals: Int, in data: JSONObject) -> [String: EditStamp] {
        // Fewer stamps than the removals kept: none can be over the limit (every change's case).
        guard stamps.count > removals else { return stamps }
        let removed = stamps.filter { data[$0.key] == nil }
        guard removed.count > removals else { return stamps }
        var kept = stamps.filter { data[$0.key] != nil }
        let latest = removed.sorted { ($0.value.time ?? .min, $0.key) > ($1.value.time ?? .min, $1.key) }.prefix(removals)
        for (name, stamp) in latest { kept[name] = stamp }
        return kept
    }

    /// Refuses a change that adds a reference (one that neither the current data nor the
    /// change's base had) to a blob its author may not refer to.
    private func check(_ blobs: Set<BlobHash>, of key: String, against earlier: [JSONObject], _ references: References) throws(ChangeRejection) {
        let known = earlier.reduce(into: Set<BlobHash>()) { $0.formUnion(BlobReference.hashes(in: $1)) }
        for hash in blobs.subtracting(known).sorted()
        where !references.checker.mayRefer(to: hash, appID: references.appID, author: references.author) {
            throw ChangeRejection(
                .blobUnavailable,
                "object \(key) would refer to blob \(hash), which you have not uploaded in full: upload it (tus 1.0 at "
                    + "/1/\(references.appID)/__blobs__) before a change refers to it")
        }
    }

    private func plan(
        _ change: IncomingChange, current: StoredObject?, data: JSONObject, storedData: String? = nil, diff: ObjectDiff?,
        intent: ObjectDiff?, isDeleted: Bool, stamps: [String: EditStamp], mergedWithoutBase: Bool = false
    ) -> Plan {
        let version = (current?.version ?? 0) + 1
        return Plan(
            object: StoredObject(key: change.key, version: version, data: data, isDeleted: isDeleted, memberStamps: stamps, sequence: 0),
            change: ChangeRecord(
                sequence: 0, key: change.key, operation: isDeleted ? .remove : .modify, sourceVersion: current?.version,
                endVersion: version, diff: diff, intent: intent, mergedWithoutBase: mergedWithoutBase, clientID: change.clientID,
                changeID: change.changeID, editTime: change.editTime),
            storedData: storedData ?? StoredValueCoding.text(data))
    }
}
