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
        #expect(read == ChangeNotification(node: "node-a", appID: "app-1", appSequences: 42...42, change: nil))
    }

    @Test func aPayloadNoNodeWroteIsNotRead() throws {
        #expect(ChangeNotification(json: try JSONValue(parsing: #"{"hello":"world"}"#)) == nil)
        #expect(ChangeNotification(json: try JSONValue(parsing: #"[1,2]"#)) == nil)
    }
}

/// A group's notifications: one per app, naming the run of the app's commit order it took.
@Suite("Change notifications of a group")
struct GroupNotificationTests {
    private let notes = BucketScope(appID: "app-1", ownerKey: "u:alice", bucket: "notes")
    private let todos = BucketScope(appID: "app-1", ownerKey: "u:bob", bucket: "todos")
    private let other = BucketScope(appID: "app-2", ownerKey: "u:carol", bucket: "notes")
    private let rowless = BucketScope(appID: "test-app", ownerKey: "u:dan", bucket: "notes")

    @Test func eachAppOfAGroupGetsOneNotificationNamingItsRunInCommitOrder() throws {
        let changes: [(scope: BucketScope, sequence: Int64, appSequence: Int64)] = [
            (notes, 4, 10), (other, 1, 3), (todos, 9, 11), (rowless, 5, 0), (notes, 5, 12), (rowless, 6, 0),
        ]
        let sent = ChangeNotification.of(changes, node: "node-a")
        #expect(sent == [
            ChangeNotification(node: "node-a", appID: "app-1", appSequences: 10...12, change: nil),
            ChangeNotification(node: "node-a", appID: "app-2", appSequence: 3, scope: other, sequence: 1),
            ChangeNotification(node: "node-a", appID: "test-app", appSequence: 0, scope: rowless, sequence: 5),
            ChangeNotification(node: "node-a", appID: "test-app", appSequence: 0, scope: rowless, sequence: 6),
        ])
        for note in sent {
            #expect(ChangeNotification(json: try JSONValue(parsing: note.payload)) == note)
        }
    }

    /// A node older than runs reads `"p"` alone: the last position, so it sees the rest of the
    /// run as missing and reads it from the database.
    @Test func aRunKeepsItsLastPositionWhereANotificationOfOneChangeHasIt() throws {
        let run = try JSONValue(parsing: ChangeNotification(node: "node-a", appID: "app-1", appSequences: 10...12, change: nil).payload)
        #expect(run["p"]?.integerValue == 12)
        #expect(run["f"]?.integerValue == 10)
        #expect(run["b"] == nil)
        let single = try JSONValue(parsing: ChangeNotification(node: "node-a", appID: "app-1", appSequence: 7, scope: notes, sequence: 2).payload)
        #expect(single["p"]?.integerValue == 7)
        #expect(single["f"] == nil)
    }

    @Test func aRunThatEndsBeforeItStartsIsNotRead() throws {
        #expect(ChangeNotification(json: try JSONValue(parsing: #"{"n":"node-a","a":"app-1","f":5,"p":4}"#)) == nil)
    }

    @Test func aRunIsNextWhenItTakesUpAfterTheCursorOrOverlapsWhatWasPassed() {
        var cursors = AppCursors()
        cursors.pass("app-1", through: 9)
        #expect(cursors.step("app-1", at: 10...12) == .next)
        #expect(cursors.step("app-1", at: 8...12) == .next)
        #expect(cursors.step("app-1", at: 3...9) == .passed)
        #expect(cursors.step("app-1", at: 12...14) == .gap(after: 9))
        #expect(cursors.step("app-2", at: 1...5) == .next)
    }
}
