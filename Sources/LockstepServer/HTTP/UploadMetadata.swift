import Foundation
import LockstepCore

/// The `Upload-Metadata` of a tus upload: comma-separated `key base64value` pairs. Lockstep
/// needs `sha256` (the blob's name, 64 hexadecimal digits) and takes `type` (or tus's usual
/// `filetype`) as the blob's media type.
struct UploadMetadata {
    var hash: BlobHash
    var type: String

    init(_ header: String?) throws {
        var values: [String: String] = [:]
        for pair in (header ?? "").split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard let key = parts.first else { continue }
            let value = parts.count == 2 ? Data(base64Encoded: String(parts[1])).map { String(decoding: $0, as: UTF8.self) } : ""
            guard let value else { throw BlobUploadError(.badRequest, "Upload-Metadata \(key) is not base64") }
            values[String(key)] = value
        }
        guard let name = values["sha256"], let hash = BlobHash(hex: name) ?? BlobHash(name) else {
            throw BlobUploadError(
                .badRequest, "Upload-Metadata must name the blob: sha256 and the base64 of its SHA-256 in 64 hexadecimal digits")
        }
        self.hash = hash
        let type = values["type"] ?? values["filetype"] ?? "application/octet-stream"
        guard !type.isEmpty, type.utf8.count <= 255, type.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw BlobUploadError(.badRequest, "the media type must be 1 to 255 printable characters without spaces")
        }
        self.type = type
    }
}

/// One byte range of a `Range` header (`bytes=a-b`, `bytes=a-`, `bytes=-n`) within a blob of
/// `size` bytes; `nil` for one that names none of its bytes, or several ranges.
struct ByteRange {
    var bounds: ClosedRange<Int64>

    init?(_ header: String, size: Int64) {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = header.dropFirst("bytes=".count)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int64(last), suffix > 0 else { return nil }
            bounds = max(0, size - suffix)...(size - 1)
        } else {
            guard let start = Int64(first), start >= 0, start < size else { return nil }
            let end = last.isEmpty ? size - 1 : Int64(last).map { min($0, size - 1) }
            guard let end, end >= start else { return nil }
            bounds = start...end
        }
    }
}
