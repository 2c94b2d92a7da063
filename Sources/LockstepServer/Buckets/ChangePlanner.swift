import LockstepCore

/// Decides what one change does to one object, by the merge rules; pure, so the SQLite and
/// PostgreSQL stores (and a retry after a lost race) all get the same answer.
struct ChangePlanner {
    var limits: Limits

    /// What the planner needs from the store beyond the current object: older versions and
    /// the changes since them, loaded only when a change was made against an old version.
    struct History {
        var data: (Int) async throws -> JSONObject?
        var changes: (Int) async throws -> [ChangeRecord]
    }

    func plan(_ change: IncomingChange, current: StoredObject?, history: History) async throws -> ObjectWrite {
        if let current, current.isDeleted {
            if case .remove = change.operation {
                throw ChangeRejection(.notFound, "object \(change.key) was already removed")
            }
            throw ChangeRejection(.removed, "object \(change.key) was removed; removed objects never come back")
        }
        switch change.operation {
        case .remove:
            guard let current else { throw ChangeRejection(.notFound, "object \(change.key) does not exist") }
            return write(
                change, current: current, data: [:], diff: nil, isDeleted: true,
                stamps: current.memberStamps)
        case .modify(let diff, let fullData):
            return try await planModify(change, current: current, history: history) { base in
                fullData.map { ObjectDiff(from: base, to: $0) } ?? (diff ?? ObjectDiff())
            }
        case .merge(let members):
            return try await planModify(change, current: current, history: history) { base in
                ObjectDiff(from: base, to: base.merging(members) { _, new in new })
            }
        }
    }

    /// Plans a modification whose diff `makeDiff` derives from the version it was made against.
    private func planModify(
        _ change: IncomingChange, current: StoredObject?, history: History, makeDiff: (JSONObject) -> ObjectDiff
    ) async throws -> ObjectWrite {
        let currentVersion = current?.version ?? 0
        if current == nil, let sourceVersion = change.sourceVersion, sourceVersion > 0 {
            throw ChangeRejection(.notFound, "object \(change.key) does not exist, so version \(sourceVersion) cannot be the base")
        }
        let sourceVersion = change.sourceVersion ?? currentVersion
        guard sourceVersion >= 0, sourceVersion <= currentVersion else {
            throw ChangeRejection(.badVersion, "version \(sourceVersion) of \(change.key) does not exist; the latest is \(currentVersion)")
        }
        let currentData = current?.data ?? [:]
        let base: JSONObject
        if sourceVersion == currentVersion {
            base = currentData
        } else if let older = try await history.data(sourceVersion) {
            base = older
        } else {
            throw ChangeRejection(.badVersion, "version \(sourceVersion) of \(change.key) is no longer retained")
        }

        var diff = makeDiff(base)
        do {
            _ = try diff.apply(to: base)
            if sourceVersion < currentVersion {
                let since = try await history.changes(sourceVersion)
                guard since.count == currentVersion - sourceVersion else {
                    throw ChangeRejection(.badVersion, "the changes since version \(sourceVersion) of \(change.key) are no longer retained")
                }
                diff = try MergeRules.rebase(
                    diff, stamp: change.stamp, base: base,
                    over: since.map { (diff: $0.diff ?? ObjectDiff(), stamp: $0.stamp) })
            }
        } catch let error as DiffError {
            throw ChangeRejection(.invalidDiff, "the diff does not apply: \(error)")
        }
        let data: JSONObject
        do {
            data = try diff.apply(to: currentData)
        } catch {
            throw ChangeRejection(.invalidDiff, "the rebased diff does not apply: \(error)")
        }
        if !diff.isPortable {
            // What the server sends must apply on every client, so increments and list diffs
            // travel as the equivalent replace and text operations.
            diff = ObjectDiff(from: currentData, to: data)
        }
        guard current == nil || data != currentData else {
            throw ChangeRejection(.emptyChange, "the change leaves \(change.key) as it is")
        }
        let size = JSONValue.object(data).jsonBytes.count
        guard size <= limits.maximumObjectBytes else {
            throw ChangeRejection(.tooLarge, "object \(change.key) would be \(size) bytes; the limit is \(limits.maximumObjectBytes)")
        }
        var stamps = current?.memberStamps ?? [:]
        for name in diff.operations.keys { stamps[name] = change.stamp }
        stamps = stamps.filter { data[$0.key] != nil }
        return write(change, current: current, data: data, diff: diff, isDeleted: false, stamps: stamps)
    }

    private func write(
        _ change: IncomingChange, current: StoredObject?, data: JSONObject, diff: ObjectDiff?, isDeleted: Bool,
        stamps: [String: EditStamp]
    ) -> ObjectWrite {
        let version = (current?.version ?? 0) + 1
        return ObjectWrite(
            expectedVersion: current?.version ?? 0,
            object: StoredObject(key: change.key, version: version, data: data, isDeleted: isDeleted, memberStamps: stamps, sequence: 0),
            change: ChangeRecord(
                sequence: 0, key: change.key, operation: isDeleted ? .remove : .modify, sourceVersion: current?.version,
                endVersion: version, diff: diff, clientID: change.clientID, changeID: change.changeID,
                editTime: change.editTime),
            retainedVersions: limits.retainedVersions)
    }
}
