import LockstepCore

/// Plans a ``ChangeGroup`` against a store's state, in order, and says what to write: the one
/// place that decides, for SQLite and PostgreSQL alike, what a group of changes does.
///
/// Each change sees what the changes before it left: the objects, their histories (extended
/// with the group's own changes), the client change ids accepted so far, and the feed and app
/// positions, which it advances. A refused change leaves nothing behind, so it is refused alone.
package struct GroupPlan {
    private let group: ChangeGroup
    private var objects: [ObjectAddress: ObjectState] = [:]
    private var feeds: [BucketScope: FeedPosition] = [:]
    private var accepted: [BucketScope: [String: ChangeRecord]] = [:]
    /// Each app's last commit position so far; `.some(nil)` for an app without a row.
    private var apps: [String: Int64?] = [:]
    private var writes = GroupWrites()

    /// What the plan knows of one object: as the store had it, and what the group did to it.
    private struct ObjectState {
        var stored: StoredObject?
        var current: StoredObject?
        /// History loaded from the store, extended with the group's changes; `nil` until needed.
        var timeline: ObjectTimeline?
        var groupChanges: [ChangeRecord] = []
    }

    package init(_ group: ChangeGroup) {
        self.group = group
    }

    /// Every object the group touches, each once, in the order the group first names it.
    package static func addresses(of group: ChangeGroup) -> [ObjectAddress] {
        var seen = Set<ObjectAddress>()
        return group.requests.map { ObjectAddress(scope: $0.scope, key: $0.change.key) }.filter { seen.insert($0).inserted }
    }

    /// For each object, the oldest version whose history planning the group needs, given the
    /// objects as the store holds them: what a store that reads ahead must load.
    package static func historyStarts(of group: ChangeGroup, objects: [ObjectAddress: StoredObject]) -> [ObjectAddress: Int] {
        var starts: [ObjectAddress: Int] = [:]
        // By index, here and below: `for request in group.requests` copies each request.
        for index in group.requests.indices {
            let address = ObjectAddress(scope: group.requests[index].scope, key: group.requests[index].change.key)
            guard let version = group.planner.historyNeeded(for: group.requests[index].change, current: objects[address]) else { continue }
            starts[address] = min(starts[address] ?? version, version)
        }
        return starts
    }

    /// Plans every change of the group, reading the store through `reads`.
    package mutating func run(reading reads: some GroupReads) throws -> GroupWrites {
        writes.outcomes.reserveCapacity(group.requests.count)
        for index in group.requests.indices {
            writes.outcomes.append(try plan(group.requests[index], at: index, reads))
        }
        return writes
    }

    private mutating func plan(_ request: ChangeRequest, at index: Int, _ reads: some GroupReads) throws -> ChangeOutcome {
        let scope = request.scope
        let change = request.change
        if let seen = try acceptedChange(scope, change.changeID, reads) {
            return .rejected(ChangeRejection(.duplicate, "change \(change.changeID) was already applied", original: seen))
        }
        let address = ObjectAddress(scope: scope, key: change.key)
        var state = try objectState(address, reads)
        if request.onlyIfAbsent, let current = state.current, !current.isDeleted {
            objects[address] = state
            return .rejected(ChangeRejection(.duplicate, "object \(change.key) already exists"))
        }
        let history = try group.planner.historyNeeded(for: change, current: state.current).flatMap { version in
            try timeline(address, &state, from: version, reads)
        }
        let plan: ChangePlanner.Plan
        do {
            plan = try group.planner.plan(
                change, current: state.current, history: history,
                references: request.restoredFrom == nil ? group.blobs.map { .init(checker: $0, appID: scope.appID, author: request.author) } : nil)
        } catch {
            objects[address] = state
            return .rejected(error)
        }

        var feed = try feedPosition(scope, reads)
        feed.sequence += 1
        feeds[scope] = feed
        let appSequence = try nextAppSequence(scope.appID, reads)

        var record = plan.change
        record.sequence = feed.sequence
        var object = plan.object
        object.sequence = feed.sequence
        state.current = object
        state.groupChanges.append(record)
        state.timeline?.append(record)
        objects[address] = state
        accepted[scope, default: [:]][change.changeID] = record

        writes.objects[address] = WrittenObject(object: object, storedData: plan.storedData)
        writes.feeds[scope] = feed
        writes.accepted.append(GroupWrites.Accepted(
            scope: scope, change: record, appSequence: appSequence,
            keepsSnapshot: !object.isDeleted && object.version % group.planner.limits.snapshotInterval == 0, data: object.data,
            blobs: plan.blobs, storedData: plan.storedData, request: index, author: request.author, restoredFrom: request.restoredFrom))
        return .committed(ChangeEvent(scope: scope, change: record, version: ChangeVersion(epoch: feed.epoch, sequence: feed.sequence)))
    }

    private mutating func acceptedChange(_ scope: BucketScope, _ changeID: String, _ reads: some GroupReads) throws -> ChangeRecord? {
        if let record = accepted[scope]?[changeID] { return record }
        return try reads.acceptedChange(scope, changeID: changeID)
    }

    /// The object's state, taken out of `objects` until the change puts it back: a state left
    /// there would be shared, and the first append to its changes would copy them all.
    private mutating func objectState(_ address: ObjectAddress, _ reads: some GroupReads) throws -> ObjectState {
        if let state = objects.removeValue(forKey: address) { return state }
        let stored = try reads.object(at: address)
        return ObjectState(stored: stored, current: stored)
    }

    /// The next position in the app's commit order; 0 for an app without a row (stores' tests).
    private mutating func nextAppSequence(_ appID: String, _ reads: some GroupReads) throws -> Int64 {
        let last: Int64?
        if let known = apps[appID] { last = known } else { last = try reads.appSequence(of: appID) }
        guard let last else {
            apps[appID] = .some(nil)
            return 0
        }
        apps[appID] = last + 1
        writes.appSequences[appID] = last + 1
        return last + 1
    }

    private mutating func feedPosition(_ scope: BucketScope, _ reads: some GroupReads) throws -> FeedPosition {
        if let feed = feeds[scope] { return feed }
        return try reads.feedPosition(of: scope)
    }

    /// The object's history from `version` through its current version (the group's changes
    /// included); `nil` when the store no longer retains that part.
    private func timeline(_ address: ObjectAddress, _ state: inout ObjectState, from version: Int, _ reads: some GroupReads) throws
        -> ObjectTimeline?
    {
        if let timeline = state.timeline, timeline.reaches(version) { return timeline }
        var timeline: ObjectTimeline
        if let stored = state.stored, version < stored.version {
            guard let loaded = try reads.timeline(at: address, from: version, through: stored) else { return nil }
            timeline = loaded
        } else if let stored = state.stored {
            timeline = ObjectTimeline(current: stored)
        } else {
            guard let empty = ObjectTimeline(baseVersion: 0, baseData: [:], changes: []) else { return nil }
            timeline = empty
        }
        for change in state.groupChanges { timeline.append(change) }
        state.timeline = timeline
        return timeline
    }
}
