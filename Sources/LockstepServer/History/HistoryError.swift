/// Why a history request (a comparison, a restore) was refused: its HTTP status and what was
/// wrong, in words.
public struct HistoryError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Int, Sendable {
        case badRequest = 400
        case forbidden = 403
        case notFound = 404
        /// What was asked for existed and is gone: a version no longer retained, a moment older
        /// than the bucket's retained history, a removed object (removed objects never come back).
        case gone = 410
        case tooLarge = 413
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var status: Int { reason.rawValue }
    public var description: String { "\(status) \(message)" }
}
