import LockstepCore
import LockstepServer

/// `N:c:{…}`: a change as a streaming client sends it.
func changeMessage(
    channel: Int = 0, id: String, ccid: String, operation: String = "M", sv: Int? = nil, diff: JSONValue? = nil, data: JSONObject? = nil,
    editTime: Int64? = nil
) -> String {
    var fields: JSONObject = ["id": .string(id), "ccid": .string(ccid), "o": .string(operation)]
    if let sv { fields["sv"] = .integer(Int64(sv)) }
    if let editTime { fields["t"] = .integer(editTime) }
    if let diff { fields["v"] = diff }
    if let data { fields["d"] = .object(data) }
    return "\(channel):c:\(JSONValue.object(fields))"
}

/// A diff that sets top-level members, as a client creating an object sends it.
func addingDiff(_ members: JSONObject) -> JSONValue {
    .object(members.mapValues { value in ["o": "+", "v": value] })
}

/// The first change object of a `c:` array.
func firstChange(_ changes: JSONValue) throws -> JSONObject {
    guard let first = changes.arrayValue?.first?.objectValue else { throw SocketTestError.noMessage("a change in \(changes)") }
    return first
}

/// The connection events of a server, to await.
final class ConnectionEvents: Sendable {
    let ends = Mailbox<SocketConnectionEnd>()
    let accepted = Mailbox<(SocketConnectionID, ChangeEvent)>()
    let opened = Mailbox<SocketConnectionInfo>()

    init(_ server: TestServer) {
        let (ends, accepted, opened) = (ends, accepted, opened)
        server.services.connections.observe { event in
            switch event {
            case .opened(let info): opened.deliver(info)
            case .changeAccepted(let id, let change, _): accepted.deliver((id, change))
            case .closed(let end): ends.deliver(end)
            case .authenticated, .spaceLeft: break
            }
        }
    }

    func nextEnd(timeout: Duration = .seconds(10)) async -> SocketConnectionEnd? {
        await ends.next(timeout: timeout) { _ in true }
    }
}
