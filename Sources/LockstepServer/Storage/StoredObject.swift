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
    /// The corrected time and client of the last write to each top-level member, a removal
    /// included (the latest ``Limits/removedMemberStampsPerObject`` of them): what the
    /// member-by-member merge compares when a change's base version is no longer retained
    /// (see ``ChangePlanner``).
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
    /// The diff that turns the source version into the end version, in the operations every
    /// client applies (`+ - r O d`); what the feed and the broadcast send. `nil` for removals.
    public var diff: ObjectDiff?
    /// What the change meant, as rebased, when that differs from ``diff``: increments and list
    /// operations, which later changes rebase over (two increments add; list inserts shift)
    /// instead of over the replace that ``diff`` sends. `nil` when ``diff`` says it all.
    public var intent: ObjectDiff?
    /// Whether the change's base version was no longer retained, so it was merged member by
    /// member by the edit stamps instead of rebased (see ``ChangePlanner``).
    public var mergedWithoutBase: Bool
    public var clientID: String
    public var changeID: String
    /// The corrected edit time the client sent, in nanoseconds since the Unix epoch.
    public var editTime: Int64?

    public init(
        sequence: Int64, key: String, operation: Operation, sourceVersion: Int?, endVersion: Int, diff: ObjectDiff?,
        intent: ObjectDiff? = nil, mergedWithoutBase: Bool = false, clientID: String, changeID: String, editTime: Int64?
    ) {
        self.sequence = sequence
        self.key = key
        self.operation = operation
        self.sourceVersion = sourceVersion
        self.endVersion = endVersion
        self.diff = diff
        self.intent = intent
        self.mergedWithoutBase = mergedWithoutBase
        self.clientID = clientID
        self.changeID = changeID
        self.editTime = editTime
    }

    public var stamp: EditStamp { EditStamp(time: editTime, clientID: clientID) }

    /// The diff later changes rebase over: what the change meant.
    public var rebaseDiff: ObjectDiff? { intent ?? diff }
}
