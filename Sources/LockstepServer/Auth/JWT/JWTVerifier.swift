import Foundation
import LockstepCore

/// What a verified JWT says about its user.
struct VerifiedClaims: Sendable, Equatable {
    /// The value of the provider's user claim (`sub` by default).
    var subject: String
    /// The email claim's value, when the settings name one and the token carries it (and
    /// does not say `email_verified: false`).
    var email: String?
    /// `exp`, in server-clock nanoseconds: the token's sockets close then.
    var expiresAt: Int64
    /// `iat` in nanoseconds, or the time of the check when the token has none.
    var issuedAt: Int64
}

/// Checks a parsed JWT against an app's provider: the algorithm, the key, the signature,
/// then the claims. Pure: the keys come from the caller, and so does the time.
enum JWTVerifier {
    /// The header's algorithm and key id, checked before any key is looked up.
    static func algorithm(of jws: CompactJWS) throws(JWTRefusal) -> (JWTAlgorithm, kid: String?) {
        let algorithm = try JWTAlgorithm(header: jws.header["alg"]?.stringValue)
        if let crit = jws.header["crit"], !crit.isNull {
            throw JWTRefusal(.malformed, "the JWT's header has \"crit\" extensions, which this server does not understand")
        }
        switch jws.header["kid"] {
        case nil, .null?: return (algorithm, nil)
        case .string(let kid)?: return (algorithm, kid)
        default: throw JWTRefusal(.malformed, "the JWT's kid must be a string")
        }
    }

    static func verify(
        _ jws: CompactJWS, key: JWTPublicKey, settings: IdentityProviderSettings, now: Int64
    ) throws(JWTRefusal) -> VerifiedClaims {
        guard key.isValidSignature(jws.signature, for: jws.signingInput) else {
            throw JWTRefusal(.badSignature, "the JWT's signature does not match its header and payload: it was altered, or not signed by that key")
        }
        let claims = jws.payload
        guard let issuer = claims["iss"]?.stringValue, issuer == settings.issuer else {
            throw JWTRefusal(
                .wrongIssuer,
                "the JWT's issuer is \(shown(claims["iss"])), not the app's identity provider \"\(settings.issuer)\"")
        }
        let audiences: [String]? = switch claims["aud"] {
        case .string(let audience)?: [audience]
        case .array(let list)?: list.compactMap(\.stringValue)
        default: nil
        }
        guard let audiences, audiences.contains(settings.audience) else {
            throw JWTRefusal(.wrongAudience, "the JWT's audience is \(shown(claims["aud"])), not this app's \"\(settings.audience)\"")
        }
        guard let exp = claims["exp"]?.doubleValue else {
            throw JWTRefusal(.missingClaim, "the JWT has no exp: tokens of an identity provider must expire")
        }
        let expiresAt = nanoseconds(exp)
        guard expiresAt > now else {
            throw JWTRefusal(.expired, "the JWT expired at \(date(expiresAt)); get a new one from the identity provider")
        }
        let leeway = Int64(settings.leewaySeconds * 1e9)
        if let nbf = claims["nbf"] {
            guard let seconds = nbf.doubleValue else { throw JWTRefusal(.malformed, "the JWT's nbf must be a number of seconds") }
            guard nanoseconds(seconds) <= now + leeway else {
                throw JWTRefusal(.notYetValid, "the JWT is not valid before \(date(nanoseconds(seconds))) (server time \(date(now)))")
            }
        }
        var issuedAt = now
        if let iat = claims["iat"] {
            guard let seconds = iat.doubleValue else { throw JWTRefusal(.malformed, "the JWT's iat must be a number of seconds") }
            issuedAt = nanoseconds(seconds)
            guard issuedAt <= now + leeway else {
                throw JWTRefusal(
                    .issuedInTheFuture, "the JWT says it was issued at \(date(issuedAt)), after the server's time \(date(now))")
            }
        }
        let subject: String? = switch claims[settings.userClaim] {
        case .string(let text)? where !text.isEmpty && text.utf8.count <= 256: text
        case .integer(let number)?: String(number)
        default: nil
        }
        guard let subject else {
            throw JWTRefusal(.missingClaim, "the JWT's \(settings.userClaim.prefix(64)) claim, which names the user, must be a string of 1 to 256 bytes")
        }
        var email: String?
        if let claim = settings.emailClaim, let address = claims[claim]?.stringValue, claims["email_verified"]?.boolValue != false {
            email = address
        }
        return VerifiedClaims(subject: subject, email: email, expiresAt: expiresAt, issuedAt: issuedAt)
    }

    /// NumericDate seconds as nanoseconds, saturating far outside Lockstep's years.
    private static func nanoseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return seconds > 0 ? .max : .min }
        return Int64(exactly: (seconds * 1e9).rounded(.down)) ?? (seconds > 0 ? .max : .min)
    }

    private static func date(_ nanoseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(nanoseconds) / 1e9).formatted(.iso8601)
    }

    private static func shown(_ value: JSONValue?) -> String {
        guard let value else { return "missing" }
        return String(value.description.prefix(120))
    }
}
