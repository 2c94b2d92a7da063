import LockstepCore

/// A change as the server sends it (`c:[…]` on the socket, `GET /changes`, `POST /changes`):
/// an accepted change `{clientid,id,o,v,sv?,ev,cv,ccids,t?}` or an error `{clientid,id,ccids,error}`.
struct RemoteChange: Sendable {
    var key: String
    var clientID: String
    var changeIDs: [String]
    var operation: OutboxChange.Operation
    var diff: ObjectDiff
    var sourceVersion: Int?
    var endVersion: Int
    var cursor: String?
    var editTime: Int64?
    var error: Int?
    var message: String?

    init(json: JSONValue) throws {
        guard case .object(let fields) = json, let key = fields["id"]?.stringValue else {
            throw LockstepClientError.protocolViolation("a change without an id: \(json)")
        }
        self.key = key
        clientID = fields["clientid"]?.stringValue ?? ""
        changeIDs = fields["ccids"]?.arrayValue?.compactMap(\.stringValue) ?? []
        error = fields["error"]?.integerValue.map { Int($0) }
        message = fields["message"]?.stringValue
        operation = fields["o"]?.stringValue == "-" ? .remove : .modify
        sourceVersion = (fields["sv"]?.integerValue ?? fields["sv"]?.stringValue.flatMap { Int64($0) }).map { Int($0) }
        endVersion = fields["ev"]?.integerValue.map { Int($0) } ?? 0
        cursor = fields["cv"]?.stringValue
        editTime = fields["t"]?.integerValue
        if error == nil, operation == .modify, let value = fields["v"] {
            do {
                diff = try ObjectDiff(json: value)
            } catch {
                throw LockstepClientError.protocolViolation("a change with a malformed diff: \(error)")
            }
        } else {
            diff = ObjectDiff()
        }
    }

    var stamp: EditStamp { EditStamp(time: editTime, clientID: clientID) }

    static func list(_ json: JSONValue) throws -> [RemoteChange] {
        guard case .array(let elements) = json else {
            throw LockstepClientError.protocolViolation("expected a list of changes, got \(json.typeName)")
        }
        return try elements.map(RemoteChange.init)
    }
}
