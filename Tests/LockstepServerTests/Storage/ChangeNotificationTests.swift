import LockstepCore
@testable import LockstepPostgres
import LockstepServer
import Testing

/// What a PostgreSQL node's commit tells the others, read back as the relay reads it.
@Suite("Change notifications")
struct ChangeNotificationTests {
    @Test func aNotificationNamesItsChangesBucketAndPositionAndReadsBack() throws {
        let scope = BucketScope(appID: "app-1", ownerKey: "u:alice", bucket: "notes \"quoted\"")
        let sent = ChangeNotification(node: "node-a", appID: "app-1", appSequence: 42, scope: scope, sequence: 7)
        let read = try #require(ChangeNotification(json: try JSONValue(parsing: sent.payload)))
        #expect(read == sent)
        #expect(SpaceNotification(json: try JSONValue(parsing: sent.payload)) == nil)
    }

    /// Past PostgreSQL's payload limit the bucket is left out; listeners then read the app's
    /// changes from the database.
    @Test func aNotificationTooLongForPostgreSQLLeavesItsBucketOut() throws {
        let scope = BucketScope(appID: "app-1", ownerKey: "u:alice", bucket: String(repeating: "b", count: 8000))
        let sent = ChangeNotification(node: "node-a", appID: "app-1", appSequence: 42, scope: scope, sequence: 7)
        #expect(sent.payload.utf8.count <= ChangeNotification.maximumPayloadBytes)
        let read = try #require(ChangeNotification(json: try JSONValue(parsing: sent.payload)))
        #expect(read == ChangeNotification(node: "node-a", appID: "app-1", appSequence: 42, change: nil))
    }

    @Test func aPayloadNoNodeWroteIsNotRead() throws {
        #expect(ChangeNotification(json: try JSONValue(parsing: #"{"hello":"world"}"#)) == nil)
        #expect(ChangeNotification(json: try JSONValue(parsing: #"[1,2]"#)) == nil)
    }
}
