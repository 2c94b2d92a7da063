/// Why an upload request was refused, with the status tus gives it.
public struct BlobUploadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Int, Sendable {
        case badRequest = 400
        case notFound = 404
        /// The request's `Upload-Offset` is not where the upload stands, or another request is
        /// writing it.
        case conflict = 409
        case tooLarge = 413
        case unsupportedMediaType = 415
        /// The bytes do not hash to the blob's name (tus's checksum-mismatch status).
        case checksumMismatch = 460
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue) \(message)" }
}
