public import LockstepCore

/// Reads a change in the shape clients send it, over the streaming socket (`c:{…}`) or in
/// the body of `POST /changes`:
/// `{"id","ccid","o":"M"|"-","sv"?,"v"?,"d"?}`, with `sv` a number or a numeric string, plus
/// Lockstep's `t` (edit time) and `author`.
///
/// `author` names the client that made a change its sender only carries (a peer's change, see
/// `PeerSync`): the change is recorded and announced as that client's, as peers already take
/// it, so that every device and the server break a tie of edit times by the same client id.
/// A client id is no credential (any client picks its own at `init`), so naming another's
/// grants nothing the sender could not have had.
public enum ChangeMessage {
    public static func parse(_ json: JSONValue, clientID: String) throws(ChangeRejection) -> IncomingChange {
        guard case .object(let fields) = json else {
            throw ChangeRejection(.badRequest, "a change must be a JSON object, not \(json.typeName)")
        }
        // The members read in one pass: a lookup by name hashes the name, and a change has
        // few members where this reads eight.
        var author, id, ccid, sv, t, o, d, v: JSONValue?
        for (name, value) in fields {
            switch name {
            case "id": id = value
            case "ccid": ccid = value
            case "o": o = value
            case "v": v = value
            case "d": d = value
            case "sv": sv = value
            case "t": t = value
            case "author": author = value
            default: break
            }
        }
        var clientID = clientID
        switch author {
        case nil, .null?:
            break
        case .string(let author)? where ClientIdentifier.isValid(author):
            clientID = author
        default:
            throw ChangeRejection(.badRequest, "\"author\" must be the client id of the change's author: \(ClientIdentifier.rule)")
        }
        guard case .string(let key)? = id else { throw ChangeRejection(.badRequest, "a change needs a string \"id\"") }
        guard case .string(let changeID)? = ccid else { throw ChangeRejection(.badRequest, "a change needs a string \"ccid\"") }
        var sourceVersion: Int?
        switch sv {
        case nil, .null?:
            break
        case .integer(let number)?:
            sourceVersion = Int(clamping: number)
        case .string(let text)? where Int(text) != nil:
            sourceVersion = Int(text)
        default:
            throw ChangeRejection(.badRequest, "\"sv\" must be a version number")
        }
        let editTime = t?.integerValue
        let operation: IncomingChange.Operation
        switch o?.stringValue {
        case "-":
            operation = .remove
        case "M":
            var fullData: JSONObject?
            if let data = d {
                guard case .object(let members) = data else {
                    throw ChangeRejection(.badRequest, "\"d\" must be the whole object")
                }
                fullData = members
            }
            // node and Android resend a refused change with `v` and `d`; iOS with `d` alone. `v`
            // is read when it is there (it names the members the client meant to change); a
            // malformed one only matters when there is no `d`.
            var diff: ObjectDiff?
            if let value = v {
                do {
                    diff = try ObjectDiff(json: value)
                } catch where fullData != nil {
                    diff = nil
                } catch {
                    throw ChangeRejection(.invalidDiff, "the diff is malformed: \(error)")
                }
            } else if fullData == nil {
                throw ChangeRejection(.badRequest, "a change needs a diff \"v\" or the object \"d\"")
            }
            operation = .modify(diff: diff, fullData: fullData)
        case let other:
            throw ChangeRejection(.badRequest, "unsupported change operation \(other.map { "\"\($0)\"" } ?? "(none)")")
        }
        return IncomingChange(
            key: key, changeID: changeID, clientID: clientID, operation: operation, sourceVersion: sourceVersion,
            editTime: editTime)
    }

    /// The error a client gets for a refused change: `{"clientid","id","ccids","error"}`, plus
    /// Lockstep's `message` saying what was wrong (Simperium clients ignore fields they don't know).
    public static func rejection(_ rejection: ChangeRejection, key: String, changeID: String, clientID: String) -> JSONValue {
        self.rejection(code: rejection.code, message: rejection.message, key: key, changeID: changeID, clientID: clientID)
    }

    /// The same error shape for a refusal that is not about the change itself (a read-only
    /// bucket: 403; a failing store: 500).
    public static func rejection(code: Int, message: String, key: String, changeID: String, clientID: String) -> JSONValue {
        [
            "clientid": .string(clientID), "id": .string(key), "ccids": [.string(changeID)],
            "error": .integer(Int64(code)), "message": .string(message),
        ]
    }
}
