import HTTPTypes
import Hummingbird
import LockstepCore
import NIOCore

/// A refusal from the store, as JSON that says why in words and in a code clients can switch on:
/// `{"error":{"reason":"not_yet","message":"…","now":1717200019999,"start":1717200020000}}`
/// (times in milliseconds since the Unix epoch, server time).
struct ReleaseError: Error, HTTPResponseError {
    enum Reason: String, Sendable {
        case noStores = "no_stores"
        case unknownStore = "unknown_store"
        case unknownSlot = "unknown_slot"
        case unknownEntry = "unknown_entry"
        case unknownItem = "unknown_item"
        case wrongItem = "wrong_item"
        case notYet = "not_yet"
        case expired
        case notReleased = "not_released"
        case purchaseIDReused = "purchase_id_reused"
        case badRequest = "bad_request"

        var status: HTTPResponse.Status {
            switch self {
            case .badRequest: .badRequest
            case .noStores, .unknownStore, .unknownSlot, .unknownEntry, .unknownItem, .notReleased: .notFound
            case .notYet, .wrongItem, .purchaseIDReused: .conflict
            case .expired: .gone
            }
        }
    }

    var reason: Reason
    var message: String
    /// More members for the error object: the times that explain a timing refusal.
    var details: JSONObject

    init(_ reason: Reason, _ message: String, details: JSONObject = [:]) {
        self.reason = reason
        self.message = message
        self.details = details
    }

    var status: HTTPResponse.Status { reason.status }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var error = details
        error["reason"] = .string(reason.rawValue)
        error["message"] = .string(message)
        // A refusal about time changes with time: no cache may keep it.
        return .json(["error": .object(error)], status: status, headers: [.cacheControl: "no-store"])
    }
}
