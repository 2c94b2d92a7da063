import LockstepCore

/// The server refused a request on spaces: its status and the message it gave.
struct SpaceRefusal: Error, CustomStringConvertible {
    var status: Int
    var message: String

    /// Reads the server's error body, `{"error":{"message":…}}`; the raw text when it is not that.
    init(status: Int, body: [UInt8]) {
        self.status = status
        let json = try? JSONValue(parsing: body)
        message = json?["error"]?["message"]?.stringValue ?? String(decoding: body, as: UTF8.self)
    }

    var description: String { "HTTP \(status): \(message.prefix(200))" }
}

extension ServerAPI {
    /// A request under `/1/{app}/__spaces__` (`path` is the rest, each segment escaped here):
    /// the JSON answer, or a ``SpaceRefusal``.
    func spaces(_ method: String, _ path: [String] = [], body: JSONValue? = nil) async throws -> JSONValue {
        let under = (["__spaces__"] + path.map(escape)).joined(separator: "/")
        let (status, _, bytes) = try await send(method, under: under, body: body, timeout: .seconds(30))
        guard (200..<300).contains(status) else { throw SpaceRefusal(status: status, body: bytes) }
        return try JSONValue(parsing: bytes)
    }

    /// `nil` while this client's user is a member of `space`; once they are not (removed, or
    /// the space deleted), the server's answer, which is the same as for a space that never was.
    func reasonForLosing(space: String) async throws -> String? {
        do {
            _ = try await spaces("GET", [space])
            return nil
        } catch let refusal as SpaceRefusal where refusal.status == 404 {
            return refusal.message
        }
    }
}

extension SpaceError {
    /// What the server's refusal of a request on `space` means; `nil` for an answer that is
    /// not one of the documented refusals.
    init?(_ refusal: SpaceRefusal, space: String, removing email: String? = nil, creating: Bool = false) {
        switch refusal.status {
        case 400: self = .invalid(refusal.message)
        case 403: self = .forbidden(space: space, message: refusal.message)
        case 404:
            // Removing someone who is not in a space the caller owns is the one 404 that is not
            // the stranger's answer; the server tells the two apart by message alone.
            if let email, refusal.message != "there is no space \(space)" {
                self = .notMember(email: email, space: space)
            } else {
                self = .notFound(space: space)
            }
        case 409 where creating: self = .nameTaken(space: space)
        case 409: self = .lastOwner(space: space, message: refusal.message)
        default: return nil
        }
    }
}
