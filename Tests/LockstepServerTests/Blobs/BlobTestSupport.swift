import Foundation
import LockstepCore
@testable import LockstepServer

/// A user's side of the blob API, as a tus client speaks it.
extension UserSession {
    static let tus = ["Tus-Resumable": "1.0.0"]

    /// Declares an upload of `bytes` (`POST`), answering the response.
    func createUpload(_ bytes: [UInt8], hash: BlobHash? = nil, length: Int? = nil, type: String = "image/jpeg") async throws -> TestResponse {
        let name = Data((hash ?? BlobHash(of: bytes)).hex.utf8).base64EncodedString()
        return try await request(
            "POST", "__blobs__",
            headers: Self.tus.merging([
                "Upload-Length": String(length ?? bytes.count), "Upload-Metadata": "sha256 \(name),type \(Data(type.utf8).base64EncodedString())",
            ]) { $1 })
    }

    /// Sends `bytes` at `offset` (`PATCH`).
    func patch(_ hash: BlobHash, _ bytes: [UInt8], at offset: Int) async throws -> TestResponse {
        try await request(
            "PATCH", "__blobs__/uploads/\(hash.hex)",
            headers: Self.tus.merging(["Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream"]) { $1 },
            rawBody: bytes)
    }

    /// Uploads `bytes` whole: declared, then sent in one `PATCH`.
    @discardableResult
    func upload(_ bytes: [UInt8], type: String = "image/jpeg") async throws -> BlobHash {
        let hash = BlobHash(of: bytes)
        let created = try await createUpload(bytes, type: type)
        guard created.status == 201 else { throw TestServerError.unexpected(created) }
        let sent = try await patch(hash, bytes, at: Int(created.header("Upload-Offset") ?? "0") ?? 0)
        guard sent.status == 204 else { throw TestServerError.unexpected(sent) }
        return hash
    }

    func download(_ hash: BlobHash, headers: [String: String] = [:]) async throws -> TestResponse {
        try await request("GET", "__blobs__/\(hash.hex)", headers: headers)
    }
}

enum BlobBytes {
    /// `count` bytes that differ from run to run.
    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func reference(_ hash: BlobHash, size: Int) -> JSONValue {
        BlobReference(hash: hash, size: Int64(size), type: "image/jpeg").json
    }
}
