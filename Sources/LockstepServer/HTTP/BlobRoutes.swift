import Foundation
import HTTPTypes
import Hummingbird
import LockstepCore
import NIOCore

/// Blobs over HTTP: resumable uploads by the tus 1.0 protocol (core and creation), and
/// downloads with ranges and validators.
///
/// - `OPTIONS /1/{app}/__blobs__`: what the server speaks (`Tus-Version`, `Tus-Max-Size`).
/// - `POST /1/{app}/__blobs__` with `Upload-Length` and `Upload-Metadata: sha256 <base64 hex>,type
///   <base64>`: declares an upload; `201`, its `Location` and the offset held so far.
/// - `HEAD /1/{app}/__blobs__/uploads/{hash}`: the upload's `Upload-Offset` and `Upload-Length`.
/// - `PATCH /1/{app}/__blobs__/uploads/{hash}` with `Upload-Offset`: appends the body; `204` and
///   the new offset, `409` when the offset is not the server's, `460` when the finished bytes
///   do not hash to the name.
/// - `GET`/`HEAD /1/{app}/__blobs__/{hash}`: the blob, to whoever may read it (`404` to anyone
///   else, as to a blob that does not exist), with `ETag`, `Range` and `Cache-Control: immutable`.
///
/// The upload's location is the blob's name under the caller, so a client that lost it (a
/// killed app) finds it again by creating the upload again.
struct BlobRoutes<Context: RequestContext> {
    let services: LockstepServices

    func add(to router: Router<Context>) {
        router.on("/1/{app}/__blobs__", method: .options) { _, _ in options() }
        router.post("/1/{app}/__blobs__") { request, context in try await responding { try await create(request, context) } }
        router.head("/1/{app}/__blobs__/uploads/{hash}") { request, context in try await responding { try await offset(request, context) } }
        router.patch("/1/{app}/__blobs__/uploads/{hash}") { request, context in try await responding { try await append(request, context) } }
        router.get("/1/{app}/__blobs__/{hash}") { request, context in try await download(request, context) }
        router.head("/1/{app}/__blobs__/{hash}") { request, context in try await download(request, context) }
    }

    private func options() -> Response {
        var headers = Self.tusHeaders
        headers[.tusVersion] = "1.0.0"
        headers[.tusExtension] = "creation"
        headers[.tusMaxSize] = String(services.limits.maximumBlobBytes)
        return .empty(status: .noContent, headers: headers)
    }

    private func create(_ request: Request, _ context: Context) async throws -> Response {
        let (identity, blobs) = try await caller(request, context)
        try Self.requireTus(request)
        guard let lengthText = request.headers[.uploadLength], let length = Int64(lengthText), length >= 0 else {
            throw BlobUploadError(.badRequest, "Upload-Length must give the blob's length in bytes")
        }
        let metadata = try UploadMetadata(request.headers[.uploadMetadata])
        let state = try blobs.create(metadata.hash, length: length, type: metadata.type, by: identity)
        var headers = Self.tusHeaders
        headers[.location] = "/1/\(identity.appID)/__blobs__/uploads/\(metadata.hash.hex)"
        headers[.uploadOffset] = String(state.offset)
        return .empty(status: .created, headers: headers)
    }

    private func offset(_ request: Request, _ context: Context) async throws -> Response {
        let (identity, blobs) = try await caller(request, context)
        try Self.requireTus(request)
        let hash = try Self.hash(context)
        guard let state = try blobs.state(hash, for: identity) else {
            throw BlobUploadError(.notFound, "there is no upload of \(hash) under way: create it first (POST)")
        }
        var headers = Self.tusHeaders
        headers[.uploadOffset] = String(state.offset)
        headers[.uploadLength] = String(state.length)
        headers[.cacheControl] = "no-store"
        return .empty(status: .ok, headers: headers)
    }

    private func append(_ request: Request, _ context: Context) async throws -> Response {
        let (identity, blobs) = try await caller(request, context)
        try Self.requireTus(request)
        let hash = try Self.hash(context)
        guard request.headers[.contentType]?.lowercased() == "application/offset+octet-stream" else {
            throw BlobUploadError(.unsupportedMediaType, "a PATCH body must be sent as Content-Type: application/offset+octet-stream")
        }
        guard let offsetText = request.headers[.uploadOffset], let offset = Int64(offsetText), offset >= 0 else {
            throw BlobUploadError(.badRequest, "Upload-Offset must give the byte the body starts at")
        }
        let reached = try await blobs.append(request.body, at: offset, to: hash, by: identity)
        var headers = Self.tusHeaders
        headers[.uploadOffset] = String(reached)
        return .empty(status: .noContent, headers: headers)
    }

    private func download(_ request: Request, _ context: Context) async throws -> Response {
        let (identity, blobs) = try await mappingServiceErrors { try await caller(request, context) }
        let notFound = HTTPError(.notFound, message: "there is no blob \(context.parameters.get("hash") ?? "") you may read")
        guard let hash = try? Self.hash(context), try await blobs.mayRead(hash, identity, services: services),
            let size = blobs.directory.completeSize(identity.appID, hash)
        else { throw notFound }
        let etag = "\"\(hash)\""
        var headers: HTTPFields = [
            .eTag: etag, .cacheControl: "private, max-age=31536000, immutable", .acceptRanges: "bytes",
            .contentType: blobs.directory.type(identity.appID, hash),
        ]
        if let tags = request.headers[.ifNoneMatch], tags.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
            return .empty(status: .notModified, headers: headers)
        }
        var status = HTTPResponse.Status.ok
        var range: ClosedRange<Int64> = 0...max(0, size - 1)
        if let rangeHeader = request.headers[.range] {
            guard let requested = ByteRange(rangeHeader, size: size) else {
                headers[.contentRange] = "bytes */\(size)"
                throw HTTPError(.rangeNotSatisfiable, headers: headers, message: "\(rangeHeader) is not a range of this blob's \(size) bytes")
            }
            range = requested.bounds
            status = .partialContent
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
        }
        let length = size == 0 ? 0 : range.count
        headers[.contentLength] = String(length)
        guard request.method != .head, length > 0 else { return .empty(status: status, headers: headers) }
        // The bytes go by sendfile (FileBodyWriter): the body promises the length, writes nothing.
        headers[HTTPField.Name(FileBodyWriter.header)!] = FileBodyWriter.value(path: blobs.directory.blobPath(identity.appID, hash), range: range)
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: Int(length)) { writer in try await writer.finish(nil) })
    }

    // MARK: Parts

    private func caller(_ request: Request, _ context: Context) async throws -> (AccountService.Identity, BlobService) {
        let app = try context.parameters.require("app")
        let identity = try await services.accounts.authenticate(
            appID: app, token: request.accessToken, actingUserID: request.headers[.simperiumUser])
        guard let blobs = services.blobs else {
            throw HTTPError(.serviceUnavailable, message: "this server keeps no blobs: start it with a blob directory (--blob-dir)")
        }
        return (identity, blobs)
    }

    /// Runs an upload request, answering its refusals as tus does (with `Tus-Resumable`).
    private func responding(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await mappingServiceErrors(body)
        } catch let error as BlobUploadError {
            throw HTTPError(HTTPResponse.Status(code: error.reason.rawValue), headers: Self.tusHeaders, message: error.message)
        }
    }

    private static func hash(_ context: Context) throws -> BlobHash {
        let text = try context.parameters.require("hash")
        guard let hash = BlobHash(hex: text) ?? BlobHash(text) else {
            throw BlobUploadError(.notFound, "\(text) is not a blob's name (64 hexadecimal digits of its SHA-256)")
        }
        return hash
    }

    private static func requireTus(_ request: Request) throws {
        guard request.headers[.tusResumable] == "1.0.0" else {
            throw HTTPError(
                .preconditionFailed, headers: [.tusVersion: "1.0.0"],
                message: "uploads speak tus 1.0.0: send Tus-Resumable: 1.0.0")
        }
    }

    private static var tusHeaders: HTTPFields { [.tusResumable: "1.0.0"] }
}

extension BlobDirectory.UploadState {
    var offset: Int64 {
        switch self {
        case .partial(let offset, _, _): offset
        case .complete(let length): length
        }
    }

    var length: Int64 {
        switch self {
        case .partial(_, let length, _): length
        case .complete(let length): length
        }
    }
}

extension HTTPField.Name {
    static let tusResumable = HTTPField.Name("Tus-Resumable")!
    static let tusVersion = HTTPField.Name("Tus-Version")!
    static let tusExtension = HTTPField.Name("Tus-Extension")!
    static let tusMaxSize = HTTPField.Name("Tus-Max-Size")!
    static let uploadLength = HTTPField.Name("Upload-Length")!
    static let uploadOffset = HTTPField.Name("Upload-Offset")!
    static let uploadMetadata = HTTPField.Name("Upload-Metadata")!
}
