public import LockstepCore

/// A change a client sends, over the streaming socket or HTTP, before the server accepts it.
public struct IncomingChange: Sendable {
    public enum Operation: Sendable {
        /// Modify (or create) the object with a diff against `sourceVersion`, or with the whole
        /// new data (`d`), from which the server computes the diff itself.
        case modify(diff: ObjectDiff?, fullData: JSONObject?)
        /// Set top-level members of the object (as an HTTP `POST` without `replace` does),
        /// leaving the others as they were in the version the change was made against.
        case merge(JSONObject)
        /// Remove the object, leaving a tombstone.
        case remove
    }

    public var key: String
    public var changeID: String
    public var clientID: String
    public var operation: Operation
    /// The version the change was made against; `nil` for a new object, or "the current
    /// version" for clients that send none.
    public var sourceVersion: Int?
    /// The corrected time of the edit, nanoseconds since the Unix epoch on the server's clock.
    public var editTime: Int64?

    public init(key: String, changeID: String, clientID: String, operation: Operation, sourceVersion: Int?, editTime: Int64?) {
        self.key = key
        self.changeID = changeID
        self.clientID = clientID
        self.operation = operation
        self.sourceVersion = sourceVersion
        self.editTime = editTime
    }

    public var stamp: EditStamp { EditStamp(time: editTime, clientID: clientID) }
}

/// Why a change was not accepted, with the status code the Simperium protocol gives it.
public struct ChangeRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Int, Sendable {
        case badRequest = 400
        case notFound = 404
        case badVersion = 405
        case duplicate = 409
        case removed = 410
        case emptyChange = 412
        case tooLarge = 413
        /// The change would add a reference to a blob its author has not uploaded in full.
        case blobUnavailable = 424
        case invalidDiff = 440
    }

    public var reason: Reason
    public var message: String
    /// For ``Reason/duplicate``: the change the client change id was first accepted as.
    public var original: ChangeRecord?

    public init(_ reason: Reason, _ message: String, original: ChangeRecord? = nil) {
        self.reason = reason
        self.message = message
        self.original = original
    }

    public var code: Int { reason.rawValue }
    public var description: String { "\(code) \(message)" }
}

/// Names the protocol accepts for objects and buckets: `[a-zA-Z0-9._%@-]`, 1 to 256 characters.
public enum EntityName {
    public static func isValid(_ name: String) -> Bool {
        let bytes = name.utf8
        return !bytes.isEmpty && bytes.count <= 256 && bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "%"), UInt8(ascii: "@"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
}
