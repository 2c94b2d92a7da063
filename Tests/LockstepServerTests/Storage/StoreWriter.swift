import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Writes to one bucket of a store the way the server's writer does, a group at a time, with
/// whole objects (`d`) so tests say what each version holds.
struct StoreWriter {
    let store: any SyncStore
    let scope: BucketScope
    var clientID = "client-a"
    var limits = Limits()
    /// The commit time of each group (server nanoseconds).
    var time: Int64 = 1_000_000

    /// A change that sets an object's whole data, against `source` (the current version when `nil`).
    func change(_ key: String, _ data: JSONObject, source: Int? = nil, changeID: String = UUID().uuidString, editTime: Int64? = 1_000_000)
        -> IncomingChange
    {
        IncomingChange(
            key: key, changeID: changeID, clientID: clientID, operation: .modify(diff: nil, fullData: data), sourceVersion: source,
            editTime: editTime)
    }

    func removal(_ key: String, changeID: String = UUID().uuidString) -> IncomingChange {
        IncomingChange(key: key, changeID: changeID, clientID: clientID, operation: .remove, sourceVersion: nil, editTime: nil)
    }

    /// Commits `changes` as one group.
    func group(_ changes: [IncomingChange]) async throws -> [ChangeOutcome] {
        try await store.commit(
            ChangeGroup(requests: changes.map { ChangeRequest(scope: scope, change: $0) }, time: time, limits: limits))
    }

    /// Sets an object's data (creating it at version 1), in a group of its own.
    func put(_ key: String, _ data: JSONObject, source: Int? = nil, changeID: String = UUID().uuidString) async throws -> ChangeOutcome {
        try await group([change(key, data, source: source, changeID: changeID)])[0]
    }

    /// Removes an object, leaving a tombstone.
    func remove(_ key: String, changeID: String = UUID().uuidString) async throws -> ChangeOutcome {
        try await group([removal(key, changeID: changeID)])[0]
    }

    /// Like ``put(_:_:source:changeID:)``, but the write must commit.
    @discardableResult
    func commit(_ key: String, _ data: JSONObject) async throws -> (ChangeRecord, ChangeVersion) {
        try Self.committed(try await put(key, data))
    }

    @discardableResult
    static func committed(_ outcome: ChangeOutcome, sourceLocation: SourceLocation = #_sourceLocation) throws -> (ChangeRecord, ChangeVersion) {
        guard case .committed(let event) = outcome else {
            Issue.record("expected a commit, got \(outcome)", sourceLocation: sourceLocation)
            throw StoreWriterError.notCommitted
        }
        return (event.change, event.version)
    }

    /// The refusal an outcome must be.
    static func rejection(_ outcome: ChangeOutcome, sourceLocation: SourceLocation = #_sourceLocation) throws -> ChangeRejection {
        guard case .rejected(let rejection) = outcome else {
            Issue.record("expected a refusal, got \(outcome)", sourceLocation: sourceLocation)
            throw StoreWriterError.notRejected
        }
        return rejection
    }
}

enum StoreWriterError: Error {
    case notCommitted
    case notRejected
}

/// An app row, so that commits draw app-wide sequence numbers.
func insertTestApp(_ store: any SyncStore, id: String = "app-\(UUID().uuidString.prefix(8).lowercased())", createdAt: Int64 = 1) async throws
    -> String
{
    try await store.insertApp(AppRecord(id: id, name: "test", apiKeyHash: "k-\(id)", adminTokenHash: "a-\(id)", createdAt: createdAt))
    return id
}
