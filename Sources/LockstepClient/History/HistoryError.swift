/// Why the server refused a history request (``Bucket/compare(_:from:to:)``, a restore), with
/// its message.
public enum HistoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No such object or version (a removal's version holds no data to compare, either).
    case notFound(String)
    /// The version or the moment is no longer retained, or the object was removed (removed
    /// objects never come back).
    case gone(String)
    /// This user may not: restoring an object needs the write right, a bucket the admin token
    /// or a space's owner right.
    case forbidden(String)
    /// A restore of a bucket would change more objects than the server's limit.
    case tooLarge(String)
    /// The request was malformed (a moment in the future).
    case invalid(String)

    init?(status: Int, message: String) {
        switch status {
        case 400: self = .invalid(message)
        case 403: self = .forbidden(message)
        case 404: self = .notFound(message)
        case 410: self = .gone(message)
        case 413: self = .tooLarge(message)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .notFound(let message), .gone(let message), .forbidden(let message), .tooLarge(let message), .invalid(let message): message
        }
    }
}
