/// Why a JWT was refused, in a sentence the client is shown (always as a 401).
///
/// Each attack the verifier stops has a reason of its own, so a developer wiring their
/// identity provider reads which check failed instead of guessing: an unsigned token
/// (`alg: none`), an HMAC one (whose "key" would be the public key itself), a key of
/// another type than the token's algorithm needs, an unknown `kid`, a wrong issuer or
/// audience, a signature that does not match (a tampered header or payload), and the times.
public struct JWTRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        case malformed
        case unsigned
        case hmac
        case unsupportedAlgorithm
        case keyTypeMismatch
        case unknownKey
        case badSignature
        case wrongIssuer
        case wrongAudience
        case expired
        case notYetValid
        case issuedInTheFuture
        case missingClaim
        case noProvider
        case providerUnreachable
        case userConflict
    }

    public var reason: Reason
    public var message: String

    init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }

    /// As the account layer answers it: 401, or 404 for an app that does not exist.
    var accountError: AccountError {
        AccountError(reason == .userConflict ? .conflict : .unauthorized, message)
    }
}
