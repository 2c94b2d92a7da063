import AsyncHTTPClient
import Foundation
import LockstepCore
import NIOCore
import NIOHTTP1

/// The HTTP side of the server a client talks to: index pages, the change feed (long-polled),
/// posting changes, and fetching one object whole.
struct ServerAPI: Sendable {
    var baseURL: String
    var app: String
    var token: String
    var clientID: String

    struct HTTPFailure: Error, CustomStringConvertible {
        var status: Int
        var body: String
        var description: String { "HTTP \(status): \(body.prefix(200))" }
    }

    func indexPage(bucket: String, mark: String?, limit: Int, data: Bool = true) async throws -> IndexPage {
        var query = "limit=\(limit)" + (data ? "&data=1" : "")
        if let mark { query += "&mark=\(escape(mark))" }
        return try IndexPage(json: try await json("GET", bucket, "index?\(query)", timeout: .seconds(60)))
    }

    /// Changes after `cursor`; the server holds the request until there are some (or ~25 s).
    /// `nil` when the server no longer knows the cursor, so the bucket must be indexed again.
    func changes(bucket: String, after cursor: String, limit: Int) async throws -> [RemoteChange]? {
        do {
            let path = "changes?cv=\(escape(cursor))&clientid=\(escape(clientID))&limit=\(limit)"
            return try RemoteChange.list(try await json("GET", bucket, path, timeout: .seconds(90)))
        } catch let failure as HTTPFailure where failure.status == 404 {
            return nil
        }
    }

    /// Posts changes in one request; one result per change, in order: the change as applied,
    /// or an error for it.
    func post(bucket: String, changes: [JSONValue]) async throws -> [RemoteChange] {
        let path = "changes?clientid=\(escape(clientID))&wait=1"
        return try RemoteChange.list(try await json("POST", bucket, path, body: .array(changes), timeout: .seconds(60)))
    }

    /// The object's latest version, or `nil` when it does not exist or was removed.
    func object(bucket: String, key: String) async throws -> (version: Int, data: JSONObject)? {
        let (status, headers, body) = try await send("GET", bucket, "i/\(escape(key))", body: nil, timeout: .seconds(30))
        if status == 404 { return nil }
        guard status == 200, let version = headers.first(name: "X-Simperium-Version").flatMap({ Int($0) }),
            case .object(let data) = try JSONValue(parsing: body)
        else { throw HTTPFailure(status: status, body: String(decoding: body, as: UTF8.self)) }
        return (version, data)
    }

    /// The bucket's options as its app's admin set them (`{}` when none were).
    func options(bucket: String) async throws -> JSONObject {
        guard case .object(let options) = try await json("GET", "__options__", "i/\(escape(bucket))", timeout: .seconds(30)) else {
            throw HTTPFailure(status: 200, body: "the options of bucket \(bucket) are not a JSON object")
        }
        return options
    }

    /// The bucket's peer key (hex), which nearby devices syncing it prove to each other. Asked
    /// when peers may be all there is, so an unreachable server is an error at once.
    func peerKey(bucket: String) async throws -> String {
        let answer = try await json("GET", bucket, "peerkey", timeout: .seconds(30), client: Self.failingFast)
        guard let key = answer["key"]?.stringValue else {
            throw HTTPFailure(status: 200, body: "a peer key answer without a key")
        }
        return key
    }

    /// An HTTP client that does not retry a connection that failed: its callers have a person
    /// waiting, and nothing to gain from the shared client's retries until the deadline.
    private static let failingFast: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    private func json(
        _ method: String, _ bucket: String, _ path: String, body: JSONValue? = nil, timeout: TimeAmount, client: HTTPClient = .shared
    ) async throws -> JSONValue {
        let (status, _, bytes) = try await send(method, bucket, path, body: body, timeout: timeout, client: client)
        guard status == 200 else { throw HTTPFailure(status: status, body: String(decoding: bytes, as: UTF8.self)) }
        return try JSONValue(parsing: bytes)
    }

    private func send(
        _ method: String, _ bucket: String, _ path: String, body: JSONValue?, timeout: TimeAmount, client: HTTPClient = .shared
    ) async throws -> (Int, HTTPHeaders, [UInt8]) {
        try await send(method, under: "\(escape(bucket))/\(path)", body: body, timeout: timeout, client: client)
    }

    /// One request to `/1/{app}/<path>`, `path` already escaped; throws
    /// ``LockstepClientError/unauthorized(_:)`` when the server refuses the token.
    func send(
        _ method: String, under path: String, body: JSONValue?, timeout: TimeAmount, client: HTTPClient = .shared
    ) async throws -> (Int, HTTPHeaders, [UInt8]) {
        var request = HTTPClientRequest(url: "\(baseURL)/1/\(escape(app))/\(path)")
        request.method = .RAW(value: method)
        request.headers.add(name: "X-Simperium-Token", value: token)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body.jsonBytes))
        }
        let response = try await client.execute(request, timeout: timeout)
        let buffer = try await response.body.collect(upTo: 256 * 1024 * 1024)
        if response.status == .unauthorized {
            throw LockstepClientError.unauthorized(String(buffer: buffer))
        }
        return (Int(response.status.code), response.headers, Array(buffer.readableBytesView))
    }

    func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlUnreservedCharacters) ?? text
    }
}

extension CharacterSet {
    /// RFC 3986 unreserved characters: everything else in a path segment or query value is escaped.
    static let urlUnreservedCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
