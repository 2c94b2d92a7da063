public import LockstepCore

/// One retained version of an object, with who made it and when: what history shows.
public struct VersionRecord: Sendable, Equatable {
    public var version: Int
    /// The object's data at this version; `nil` for a removal's version.
    public var data: JSONObject?
    /// Who made the change; `nil` when nobody recorded it (changes from before authors were
    /// kept, see the stores' migrations).
    public var author: ChangeAuthor?
    /// A user author's username (their email), when that user still exists.
    public var authorName: String?
    public var clientID: String
    public var changeID: String
    /// The server's time of the commit, in nanoseconds since the Unix epoch.
    public var committedAt: Int64
    /// The corrected edit time the client sent (`t`), in nanoseconds since the Unix epoch.
    public var editTime: Int64?
    /// For a restore, the version whose data it put back (0: the object did not exist then).
    public var restoredFrom: Int?

    public init(
        version: Int, data: JSONObject?, author: ChangeAuthor?, authorName: String? = nil, clientID: String, changeID: String,
        committedAt: Int64, editTime: Int64? = nil, restoredFrom: Int? = nil
    ) {
        self.version = version
        self.data = data
        self.author = author
        self.authorName = authorName
        self.clientID = clientID
        self.changeID = changeID
        self.committedAt = committedAt
        self.editTime = editTime
        self.restoredFrom = restoredFrom
    }

    /// Whether this is a removal's version.
    public var isRemoval: Bool { data == nil }
}

/// Who made one version and when, as a store's `changes` row says: a ``VersionRecord`` without
/// its data, which the stores rebuild from the object's timeline.
package struct VersionAuthorship: Sendable, Equatable {
    package var version: Int
    /// `changes.author` as stored (``ChangeAuthor/stored``).
    package var author: String?
    package var authorName: String?
    package var clientID: String
    package var changeID: String
    package var committedAt: Int64
    package var editTime: Int64?
    package var restoredFrom: Int?

    package init(
        version: Int, author: String?, authorName: String?, clientID: String, changeID: String, committedAt: Int64, editTime: Int64?,
        restoredFrom: Int?
    ) {
        self.version = version
        self.author = author
        self.authorName = authorName
        self.clientID = clientID
        self.changeID = changeID
        self.committedAt = committedAt
        self.editTime = editTime
        self.restoredFrom = restoredFrom
    }

    /// The version with its data.
    package func record(data: JSONObject?) -> VersionRecord {
        VersionRecord(
            version: version, data: data, author: ChangeAuthor(stored: author), authorName: authorName, clientID: clientID,
            changeID: changeID, committedAt: committedAt, editTime: editTime, restoredFrom: restoredFrom)
    }

    /// Each of `authorships` with its data from `timeline`, oldest first: the data of every
    /// version is rebuilt in one pass over the timeline's changes, not from its base for each.
    package static func records(_ authorships: [VersionAuthorship], from timeline: ObjectTimeline) throws -> [VersionRecord] {
        guard let first = authorships.first?.version else { return [] }
        let data = try timeline.dataOfEach(from: first, through: authorships.last?.version ?? first)
        return authorships.compactMap { authorship in
            guard let entry = data[authorship.version] else { return nil }
            return authorship.record(data: entry)
        }
    }
}
