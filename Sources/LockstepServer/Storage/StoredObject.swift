public import LockstepCore

/// An object as the store holds it: its latest version and how it got there.
public struct StoredObject: Sendable, Equatable {
    public var key: String
    /// 1 for the creating change, one more for each accepted change, including the removal.
    public var version: Int
    /// The data of the latest version; empty for a tombstone.
    public var data: JSONObject
    /// Whether the object was removed. A removed object stays as a tombstone and never comes back.
    public var isDeleted: Bool
    /// The corrected time and client of the last write to each top-level member, for the
    /// last-writer-wins rule when a change's history is no longer retained.
    public var memberStamps: [String: EditStamp]
    /// The feed sequence of the change that made this version.
    public var sequence: Int64

    public init(key: String, version: Int, data: JSONObject, isDeleted: Bool, memberStamps: [String: EditStamp], sequence: Int64) {
        self.key = key
        self.version = version
        self.data = data
        self.isDeleted = isDeleted
        self.memberStamps = memberStamps
        self.sequence = sequence
    }
}

/// One accepted change, as the bucket's feed records it and the streaming protocol sends it.
public struct ChangeRecord: Sendable, Equatable {
    public enum Operation: String, Sendable {
        case modify = "M"
        case remove = "-"
    }

    /// The position of the change in its bucket's feed.
    public var sequence: Int64
    public var key: String
    public var operation: Operation
    /// The version the diff applies to; `nil` when the change created the object.
    public var sourceVersion: Int?
    /// The version the change made.
    public var endVersion: Int
    /// The diff as applied (after any rebase); `nil` for removals.
    public var diff: ObjectDiff?
    public var clientID: String
    public var changeID: String
    /// The corrected edit time the client sent, in nanoseconds since the Unix epoch.
    public var editTime: Int64?

    public init(
        sequence: Int64, key: String, operation: Operation, sourceVersion: Int?, endVersion: Int, diff: ObjectDiff?,
        clientID: String, changeID: String, editTime: Int64?
    ) {
        self.sequence = sequence
        self.key = key
        self.operation = operation
        self.sourceVersion = sourceVersion
        self.endVersion = endVersion
        self.diff = diff
        self.clientID = clientID
        self.changeID = changeID
        self.editTime = editTime
    }

    public var stamp: EditStamp { EditStamp(time: editTime, clientID: clientID) }
}
