public import Foundation
public import LockstepCore

/// One retained version of an object on the server, with who made it and when: a line of the
/// object's history (``Bucket/versions(of:before:limit:)``).
///
/// ```swift
/// for version in try await items.versions(of: "sofa") {
///     print(version.version, version.author, version.committedAt, version.data ?? "removed")
/// }
/// ```
public struct ObjectVersion: Sendable, Equatable {
    /// The version number: 1 for the object's creation, one more for each change after it.
    public var version: Int
    /// The object's data at this version; `nil` for its removal.
    public var data: JSONObject?
    public var author: VersionAuthor
    /// The client (device) that made the change, as it named itself.
    public var clientID: String
    /// The change's client change id (`ccid`).
    public var changeID: String
    /// When the server committed the change, on its clock.
    public var committedAt: Date
    /// When the device made the edit, on the server's clock as the device estimated it (the
    /// edit may have waited offline); `nil` when the client sent no edit time.
    public var editTime: Date?
    /// For a restore, the version whose data it put back (0: the object did not exist then).
    public var restoredFrom: Int?

    public init(
        version: Int, data: JSONObject?, author: VersionAuthor, clientID: String, changeID: String, committedAt: Date, editTime: Date? = nil,
        restoredFrom: Int? = nil
    ) {
        self.version = version
        self.data = data
        self.author = author
        self.clientID = clientID
        self.changeID = changeID
        self.committedAt = committedAt
        self.editTime = editTime
        self.restoredFrom = restoredFrom
    }

    /// Whether this version is the object's removal.
    public var isRemoval: Bool { data == nil }

    /// Reads a version as the server answers it (`{"v","data"?,"removed"?,"author","ccid","committedAt","t"?,"restoredFrom"?}`).
    init(json: JSONValue) throws(LockstepClientError) {
        guard let version = json["v"]?.integerValue, let clientID = json["author"]?["client"]?.stringValue,
            let changeID = json["ccid"]?.stringValue, let committedAt = json["committedAt"]?.integerValue
        else { throw LockstepClientError.protocolViolation("a version without v, author.client, ccid or committedAt: \(json)") }
        let data: JSONObject?
        switch json["data"] {
        case .object(let object)?: data = object
        case nil where json["removed"] == true: data = nil
        default: throw LockstepClientError.protocolViolation("version \(version) has neither data nor \"removed\"")
        }
        self.init(
            version: Int(version), data: data, author: VersionAuthor(json: json["author"]), clientID: clientID, changeID: changeID,
            committedAt: Date(timeIntervalSince1970: Double(committedAt) / 1000),
            editTime: json["t"]?.integerValue.map { Date(timeIntervalSince1970: Double($0) / 1e9) },
            restoredFrom: json["restoredFrom"]?.integerValue.map { Int($0) })
    }
}

/// Who made a version.
public enum VersionAuthor: Sendable, Equatable, CustomStringConvertible {
    /// A user, by id; with their email (the name they sign in with) where the server shows it:
    /// in a space's buckets, whose members see each other's emails.
    case user(id: String, email: String?)
    /// The app's admin token (an operator, the console).
    case admin
    /// The server itself: a presence object removed when its connection went away, a purchase.
    case server
    /// Not recorded: a version from before the server kept authors.
    case unknown

    init(json: JSONValue?) {
        switch json?["kind"]?.stringValue {
        case "user": self = .user(id: json?["user"]?.stringValue ?? "", email: json?["email"]?.stringValue)
        case "admin": self = .admin
        case "server": self = .server
        default: self = .unknown
        }
    }

    public var description: String {
        switch self {
        case .user(let id, let email): email ?? "user \(id)"
        case .admin: "the admin"
        case .server: "the server"
        case .unknown: "unknown"
        }
    }
}
