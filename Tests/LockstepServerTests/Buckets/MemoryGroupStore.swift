@testable import LockstepServer
import LockstepCore

/// A store for ``GroupPlan`` kept in memory, with every change ever made: the planning rules
/// alone, without a database, for property tests that run thousands of histories.
struct MemoryGroupStore {
    var objects: [ObjectAddress: StoredObject] = [:]
    var changes: [ObjectAddress: [ChangeRecord]] = [:]
    var feeds: [BucketScope: FeedPosition] = [:]
    var limits = Limits()

    /// Plans and applies one group, as a store's commit would.
    mutating func commit(_ requests: [ChangeRequest]) throws -> [ChangeOutcome] {
        var plan = GroupPlan(ChangeGroup(requests: requests, time: 0, limits: limits))
        let writes = try plan.run(reading: Reads(store: self))
        for accepted in writes.accepted {
            changes[ObjectAddress(scope: accepted.scope, key: accepted.change.key), default: []].append(accepted.change)
        }
        objects.merge(writes.objects.mapValues(\.object)) { _, new in new }
        feeds.merge(writes.feeds) { _, new in new }
        return writes.outcomes
    }

    private struct Reads: GroupReads {
        let store: MemoryGroupStore

        func feedPosition(of scope: BucketScope) throws -> FeedPosition {
            store.feeds[scope] ?? FeedPosition(epoch: 1, sequence: 0)
        }

        func appSequence(of appID: String) throws -> Int64? { nil }

        func object(at address: ObjectAddress) throws -> StoredObject? { store.objects[address] }

        func acceptedChange(_ scope: BucketScope, changeID: String) throws -> ChangeRecord? {
            store.changes.filter { $0.key.scope == scope }.values.joined().first { $0.changeID == changeID }
        }

        func timeline(at address: ObjectAddress, from version: Int, through current: StoredObject) throws -> ObjectTimeline? {
            ObjectTimeline(baseVersion: 0, baseData: [:], changes: store.changes[address] ?? [])
        }
    }
}
