import Foundation
import LockstepCore
import LockstepServer
import Testing

/// Writes to one bucket of a store the way ``BucketService`` does, without its merge planning:
/// each write names the version it expects and sets the object's whole data.
struct StoreWriter {
    let store: any SyncStore
    let scope: BucketScope
    var clientID = "client-a"

    /// Sets an object's data (creating it at version 1), expecting its current version unless told otherwise.
    func put(
        _ key: String, _ data: JSONObject, expecting expected: Int? = nil, changeID: String = UUID().uuidString, retaining: Int = 10
    ) async throws -> CommitOutcome {
        let current = try await store.object(scope, key: key)
        let from = expected ?? current?.version ?? 0
        let stamp = EditStamp(time: 1_000_000 + Int64(from), clientID: clientID)
        let change = ChangeRecord(
            sequence: 0, key: key, operation: .modify, sourceVersion: from == 0 ? nil : from, endVersion: from + 1,
            diff: ObjectDiff(from: current?.data ?? [:], to: data), clientID: clientID, changeID: changeID, editTime: stamp.time)
        let object = StoredObject(
            key: key, version: from + 1, data: data, isDeleted: false, memberStamps: data.mapValues { _ in stamp }, sequence: 0)
        return try await store.commit(
            scope, ObjectWrite(expectedVersion: from, object: object, change: change, retainedVersions: retaining))
    }

    /// Removes an object, leaving a tombstone.
    func remove(_ key: String, changeID: String = UUID().uuidString) async throws -> CommitOutcome {
        let current = try #require(try await store.object(scope, key: key))
        let change = ChangeRecord(
            sequence: 0, key: key, operation: .remove, sourceVersion: current.version, endVersion: current.version + 1, diff: nil,
            clientID: clientID, changeID: changeID, editTime: nil)
        let object = StoredObject(
            key: key, version: current.version + 1, data: [:], isDeleted: true, memberStamps: current.memberStamps, sequence: 0)
        return try await store.commit(
            scope, ObjectWrite(expectedVersion: current.version, object: object, change: change, retainedVersions: 10))
    }

    /// Like ``put(_:_:expecting:changeID:retaining:)``, but the write must commit.
    @discardableResult
    func commit(_ key: String, _ data: JSONObject) async throws -> (ChangeRecord, ChangeVersion) {
        try Self.committed(try await put(key, data))
    }

    @discardableResult
    static func committed(_ outcome: CommitOutcome, sourceLocation: SourceLocation = #_sourceLocation) throws -> (ChangeRecord, ChangeVersion) {
        guard case .committed(let record, let version) = outcome else {
            Issue.record("expected a commit, got \(outcome)", sourceLocation: sourceLocation)
            throw StoreWriterError.notCommitted
        }
        return (record, version)
    }
}

enum StoreWriterError: Error {
    case notCommitted
}

/// An app row, so that commits draw app-wide sequence numbers.
func insertTestApp(_ store: any SyncStore, id: String = "app-\(UUID().uuidString.prefix(8).lowercased())", createdAt: Int64 = 1) async throws
    -> String
{
    try await store.insertApp(AppRecord(id: id, name: "test", apiKeyHash: "k-\(id)", adminTokenHash: "a-\(id)", createdAt: createdAt))
    return id
}
