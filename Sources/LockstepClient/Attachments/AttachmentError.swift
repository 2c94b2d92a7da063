/// Why an attachment could not be stored, uploaded or read.
public enum AttachmentError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The bytes hashed to something else than expected: a download damaged on its way, or
    /// data the server says it did not get whole.
    case hashMismatch(expected: String, actual: String)
    /// The device's copy of an attachment waiting to upload no longer holds its bytes (the
    /// file was altered or damaged): it cannot be uploaded, and the upload stops for good.
    case corruptLocalFile(sha256: String)
    /// The device has no copy of the attachment's bytes to upload.
    case missingLocalFile(sha256: String)
    /// The server refused: 413 for a blob over the maximum size or the user's quota (the
    /// message says how much is used), 400 for a bad request.
    case refused(status: Int, message: String)
    /// The server has no such blob, or this user may not read it.
    case notFound(sha256: String)
    /// The value is not an attachment reference.
    case notAnAttachment(String)
    /// The local store could not be written.
    case localStore(String)

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .hashMismatch(let expected, let actual): "expected SHA-256 \(expected) but the bytes hash to \(actual)"
        case .corruptLocalFile(let sha256): "the local copy of attachment \(sha256.prefix(12))… was altered: it no longer hashes to its name"
        case .missingLocalFile(let sha256): "the device has no copy of attachment \(sha256.prefix(12))…"
        case .refused(let status, let message): "the server refused the attachment (HTTP \(status)): \(message)"
        case .notFound(let sha256): "attachment \(sha256.prefix(12))… is not on the server, or this user may not read it"
        case .notAnAttachment(let what): "not an attachment reference: \(what.prefix(80))"
        case .localStore(let message): "the attachment store failed: \(message)"
        }
    }
}
