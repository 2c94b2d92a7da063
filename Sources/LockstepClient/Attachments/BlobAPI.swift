import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The server's blob endpoints, as the client speaks them: uploads by tus 1.0.0 (core and
/// creation: `POST` to create, `HEAD` for the offset, `PATCH` from it) and plain `GET` downloads,
/// all under `/1/{app}/__blobs__` with the user's token.
///
/// A transient failure (no connection, a 5xx) throws what the HTTP client threw or
/// ``ServerAPI/HTTPFailure``; the caller retries. A refusal that retrying cannot change throws
/// ``AttachmentError``; a refused token ``LockstepClientError/unauthorized(_:)``.
struct BlobAPI: Sendable {
    let api: ServerAPI

    /// What the server said to a `PATCH`.
    enum PatchOutcome: Equatable {
        /// It holds this many bytes now.
        case offset(Int64)
        /// The offset sent was not the server's (409): ask it with `HEAD`.
        case conflict
        /// The last byte arrived and the bytes did not hash to the blob's name (460): the server
        /// discarded the upload. The message names both hashes.
        case hashMismatch(String)
    }

    /// The HTTP client for blobs: a connection silent for a minute is given up (the shared
    /// client waits forever for a stalled download's next bytes), and the caller retries.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.read = .seconds(60)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    private var root: String { "\(api.baseURL)/1/\(api.escape(api.app))/__blobs__" }

    /// Creates the upload of `attachment` (or finds this user's upload of it under way, or
    /// done): its location, and the bytes the server already holds.
    func create(_ attachment: Attachment) async throws -> (location: String, offset: Int64) {
        let metadata = "sha256 \(Data(attachment.sha256.utf8).base64EncodedString()),type \(Data(attachment.type.utf8).base64EncodedString())"
        let (status, headers, body) = try await send("POST", root, headers: [
            ("Tus-Resumable", "1.0.0"), ("Upload-Length", String(attachment.size)), ("Upload-Metadata", metadata),
        ])
        switch status {
        case 200, 201:
            guard let location = headers.first(name: "Location"), let offset = headers.first(name: "Upload-Offset").flatMap({ Int64($0) }) else {
                throw LockstepClientError.protocolViolation("an upload created without Location or Upload-Offset")
            }
            return (resolve(location), offset)
        case 400, 403, 413, 415: throw AttachmentError.refused(status: status, message: body)
        default: throw ServerAPI.HTTPFailure(status: status, body: body)
        }
    }

    /// The bytes the server holds of the upload at `location`; `nil` when it has no such
    /// upload for this user (it expired, or was discarded).
    func offset(at location: String) async throws -> Int64? {
        let (status, headers, body) = try await send("HEAD", location, headers: [("Tus-Resumable", "1.0.0")])
        switch status {
        case 200, 204:
            guard let offset = headers.first(name: "Upload-Offset").flatMap({ Int64($0) }) else {
                throw LockstepClientError.protocolViolation("HEAD of an upload without Upload-Offset")
            }
            return offset
        case 404, 410: return nil
        default: throw ServerAPI.HTTPFailure(status: status, body: body)
        }
    }

    /// Sends `bytes` as the upload's content from `offset`.
    func patch(_ location: String, offset: Int64, bytes: Data) async throws -> PatchOutcome {
        let (status, headers, body) = try await send(
            "PATCH", location,
            headers: [("Tus-Resumable", "1.0.0"), ("Content-Type", "application/offset+octet-stream"), ("Upload-Offset", String(offset))],
            body: ByteBuffer(bytes: bytes), timeout: .seconds(300))
        switch status {
        case 200, 204:
            guard let now = headers.first(name: "Upload-Offset").flatMap({ Int64($0) }) else {
                throw LockstepClientError.protocolViolation("PATCH answered without Upload-Offset")
            }
            return .offset(now)
        case 409: return .conflict
        case 460: return .hashMismatch(body)
        case 404, 410: return .conflict
        case 400, 403, 413, 415: throw AttachmentError.refused(status: status, message: body)
        default: throw ServerAPI.HTTPFailure(status: status, body: body)
        }
    }

    /// Downloads blob `sha256` into `writer`, reporting the bytes received so far as they come.
    func download(_ sha256: String, into writer: BlobWriter, progress: (Int64) -> Void) async throws {
        var request = HTTPClientRequest(url: "\(root)/\(sha256)")
        request.headers.add(name: "X-Simperium-Token", value: api.token)
        let response = try await Self.client.execute(request, timeout: .seconds(30))
        switch response.status.code {
        case 200: break
        case 401: throw LockstepClientError.unauthorized(String(buffer: try await response.body.collect(upTo: 64 * 1024)))
        case 403, 404: throw AttachmentError.notFound(sha256: sha256)
        default:
            let body = try await response.body.collect(upTo: 64 * 1024)
            throw ServerAPI.HTTPFailure(status: Int(response.status.code), body: String(buffer: body))
        }
        for try await buffer in response.body {
            try writer.append(Data(buffer.readableBytesView))
            progress(writer.count)
        }
    }

    private func resolve(_ location: String) -> String {
        URL(string: location, relativeTo: URL(string: api.baseURL))?.absoluteString ?? location
    }

    private func send(
        _ method: String, _ url: String, headers: [(String, String)], body: ByteBuffer? = nil, timeout: TimeAmount = .seconds(60)
    ) async throws -> (Int, HTTPHeaders, String) {
        var request = HTTPClientRequest(url: url)
        request.method = .RAW(value: method)
        request.headers.add(name: "X-Simperium-Token", value: api.token)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(body) }
        let response = try await Self.client.execute(request, timeout: timeout)
        let text = String(buffer: try await response.body.collect(upTo: 1024 * 1024))
        if response.status == .unauthorized { throw LockstepClientError.unauthorized(text) }
        return (Int(response.status.code), response.headers, text)
    }
}
