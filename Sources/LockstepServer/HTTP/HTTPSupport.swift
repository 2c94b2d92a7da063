import Foundation
import HTTPTypes
import Hummingbird
import LockstepCore
import NIOCore

extension HTTPField.Name {
    static let simperiumToken = HTTPField.Name("X-Simperium-Token")!
    static let simperiumAPIKey = HTTPField.Name("X-Simperium-API-Key")!
    static let simperiumUser = HTTPField.Name("X-Simperium-User")!
    static let simperiumVersion = HTTPField.Name("X-Simperium-Version")!
}

extension Response {
    /// A JSON response with compact, deterministic output.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: value.jsonBytes)))
    }

    static func empty(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        Response(status: status, headers: headers, body: ResponseBody())
    }
}

extension Request {
    /// The access token a request carries: `X-Simperium-Token`, or else `Authorization:
    /// Bearer` (what a backend holding its identity provider's JWT sends). A Lockstep token, the
    /// admin token and a JWT are accepted in either.
    var accessToken: String? {
        if let token = headers[.simperiumToken] { return token }
        guard let authorization = headers[.authorization] else { return nil }
        let scheme = "bearer "
        guard authorization.utf8.count > scheme.utf8.count, authorization.prefix(scheme.count).lowercased() == scheme else { return nil }
        return authorization.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces)
    }

    /// The body as JSON, refusing bodies over `limit` bytes (413) and anything that is not JSON (400).
    mutating func jsonBody(limit: Int) async throws -> JSONValue {
        let buffer = try await collectBody(upTo: limit)
        guard buffer.readableBytes > 0 else { throw HTTPError(.badRequest, message: "the request needs a JSON body") }
        do {
            return try buffer.withUnsafeReadableBytes { bytes in try JSONValue(parsing: bytes.bindMemory(to: UInt8.self)) }
        } catch {
            throw HTTPError(.badRequest, message: "the body is not valid JSON: \(error)")
        }
    }

    /// The body as a JSON object.
    mutating func jsonObjectBody(limit: Int) async throws -> JSONObject {
        let value = try await jsonBody(limit: limit)
        guard case .object(let members) = value else {
            throw HTTPError(.badRequest, message: "the body must be a JSON object, not \(value.typeName)")
        }
        return members
    }

    /// Fields of a JSON or form-encoded body (legacy Simperium clients post forms to `create/`);
    /// JSON booleans and numbers come as their text. An empty body is refused unless
    /// `allowingEmpty`.
    mutating func fields(limit: Int, allowingEmpty: Bool = false) async throws -> [String: String] {
        let buffer = try await collectBody(upTo: limit)
        if allowingEmpty && buffer.readableBytes == 0 { return [:] }
        let text = String(buffer: buffer)
        if let value = try? JSONValue(parsing: text), case .object(let members) = value {
            return members.compactMapValues { member in
                switch member {
                case .string(let string): string
                case .bool, .integer, .number: member.description
                default: nil
                }
            }
        }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { part in
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard !fields.isEmpty else { throw HTTPError(.badRequest, message: "the body must be a JSON object or a form") }
        return fields
    }

    /// `?clientid=`, the client id its changes are recorded under, checked
    /// (``ClientIdentifier``); "http" without one.
    func clientID() throws -> String {
        guard let id = query("clientid") else { return "http" }
        guard ClientIdentifier.isValid(id) else { throw HTTPError(.badRequest, message: "clientid must be \(ClientIdentifier.rule)") }
        return id
    }

    func query(_ name: String) -> String? {
        uri.queryParameters.get(name)
    }

    /// A query flag: present with any value other than `0` or `false`.
    func flag(_ name: String) -> Bool {
        guard let value = query(name) else { return false }
        return value != "0" && value.lowercased() != "false"
    }

    func queryInteger(_ name: String, range: ClosedRange<Int>) throws -> Int? {
        guard let text = query(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw HTTPError(.badRequest, message: "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

extension AccountError {
    var httpError: HTTPError {
        HTTPError(HTTPResponse.Status(code: status.rawValue), message: message)
    }
}

extension ChangeRejection {
    var httpError: HTTPError {
        // 440 is the streaming protocol's "invalid diff"; over HTTP it is a bad request.
        let status = reason == .invalidDiff ? 400 : code
        return HTTPError(HTTPResponse.Status(code: status), message: message)
    }
}

/// Runs `body`, turning the service layer's errors into HTTP errors with their statuses.
func mappingServiceErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as AccountError {
        throw error.httpError
    } catch let error as ChangeRejection {
        throw error.httpError
    }
}
