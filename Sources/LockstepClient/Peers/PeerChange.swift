import LockstepCore

/// A change as peers pass it on: who made it, with which ccid, when in corrected time, and
/// the members it set and unset (or a removal).
///
/// The ccid is the one the author's outbox sends to the server, so however many devices carry
/// the change there, the server applies it once.
struct PeerChange: Sendable, Equatable {
    var bucket: String
    var key: String
    var changeID: String
    var author: String
    var operation: OutboxChange.Operation
    var edits: MemberEdits
    var editTime: Int64?

    /// Who wrote `member`, and when: the member's own edit time where the change coalesced several edits.
    func stamp(of member: String) -> MemberStamp {
        MemberStamp(time: edits.times[member] ?? editTime, clientID: author, changeID: changeID)
    }

    init(
        bucket: String, key: String, changeID: String, author: String, operation: OutboxChange.Operation,
        edits: MemberEdits, editTime: Int64?
    ) {
        self.bucket = bucket
        self.key = key
        self.changeID = changeID
        self.author = author
        self.operation = operation
        self.edits = edits
        self.editTime = editTime
    }

    var json: JSONValue {
        var fields: JSONObject = [
            "id": .string(key), "ccid": .string(changeID), "author": .string(author), "o": .string(operation.rawValue),
            "edits": edits.json,
        ]
        if let editTime { fields["t"] = .integer(editTime) }
        return .object(fields)
    }

    init(json: JSONValue, bucket: String) throws {
        guard let key = json["id"]?.stringValue, let changeID = json["ccid"]?.stringValue,
            let author = json["author"]?.stringValue, let operation = json["o"]?.stringValue.flatMap(OutboxChange.Operation.init),
            let edits = json["edits"]
        else {
            throw LockstepClientError.protocolViolation("a peer change without id, ccid, author, o or edits")
        }
        self.init(
            bucket: bucket, key: key, changeID: changeID, author: author, operation: operation,
            edits: try MemberEdits(json: edits), editTime: json["t"]?.integerValue)
    }
}
