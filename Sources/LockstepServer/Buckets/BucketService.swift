import LockstepCore
import Logging

/// Applies changes to buckets by the merge rules and announces every accepted change: the
/// single path that HTTP writes, streaming writes and presence removals all take.
public struct BucketService: Sendable {
    public let store: any SyncStore
    public let hub: ChangeHub
    let planner: ChangePlanner

    public init(store: any SyncStore, hub: ChangeHub, limits: Limits) {
        self.store = store
        self.hub = hub
        self.planner = ChangePlanner(limits: limits)
    }

    /// Applies one change, or throws the ``ChangeRejection`` that says why not.
    ///
    /// The store commits with a compare-and-swap on the object's version; when another writer
    /// got there first the change is planned again against the new version.
    @discardableResult
    public func apply(_ change: IncomingChange, to scope: BucketScope) async throws -> ChangeEvent {
        do {
            let event = try await commit(change, to: scope)
            LockstepMetrics.changesApplied.increment()
            return event
        } catch let rejection as ChangeRejection {
            LockstepMetrics.changesRejected.increment()
            throw rejection
        }
    }

    private func commit(_ change: IncomingChange, to scope: BucketScope) async throws -> ChangeEvent {
        guard EntityName.isValid(change.key) else {
            throw ChangeRejection(.badRequest, "\"\(change.key)\" is not a valid object id: use 1 to 256 of a-z A-Z 0-9 . _ % @ -")
        }
        guard !change.changeID.isEmpty, change.changeID.utf8.count <= 256 else {
            throw ChangeRejection(.badRequest, "a change needs a ccid of 1 to 256 characters")
        }
        let history = ChangePlanner.History(
            data: { version in try await store.objectData(scope, key: change.key, version: version) },
            changes: { version in try await store.changes(scope, key: change.key, after: version) })
        for _ in 0..<16 {
            if let seen = try await store.change(scope, changeID: change.changeID) {
                throw ChangeRejection(.duplicate, "change \(change.changeID) was already applied", original: seen)
            }
            let current = try await store.object(scope, key: change.key)
            let write = try await planner.plan(change, current: current, history: history)
            switch try await store.commit(scope, write) {
            case .committed(let record, let version):
                let event = ChangeEvent(scope: scope, change: record, version: version)
                hub.publish(event)
                return event
            case .duplicate(let seen):
                throw ChangeRejection(.duplicate, "change \(change.changeID) was already applied", original: seen)
            case .versionConflict:
                continue
            }
        }
        throw ChangeRejection(.badVersion, "object \(change.key) is changing too fast to apply this change; send it again")
    }
}
