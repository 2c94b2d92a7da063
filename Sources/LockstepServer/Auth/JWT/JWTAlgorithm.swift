/// The signature algorithms Lockstep accepts in a JWT: the asymmetric ones identity
/// providers sign with. Each key type verifies exactly one of them, so a token cannot choose
/// how its key is used.
enum JWTAlgorithm: String, Sendable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256, over an RSA key of 2048 bits or more.
    case rs256 = "RS256"
    /// ECDSA over P-256 with SHA-256.
    case es256 = "ES256"
    /// Ed25519 (RFC 8037).
    case edDSA = "EdDSA"

    /// The algorithm a header's `alg` names, or why it is refused.
    init(header alg: String?) throws(JWTRefusal) {
        guard let alg else { throw JWTRefusal(.malformed, "the JWT's header has no \"alg\"") }
        if let algorithm = JWTAlgorithm(rawValue: alg) {
            self = algorithm
            return
        }
        let accepted = "only RS256, ES256 and EdDSA are accepted"
        switch alg.lowercased() {
        case "none":
            throw JWTRefusal(.unsigned, "the JWT's alg is none: an unsigned token is never accepted")
        case "hs256", "hs384", "hs512":
            throw JWTRefusal(.hmac, "the JWT is signed with \(alg.prefix(16)), an HMAC algorithm (a shared secret, not the provider's key): \(accepted)")
        default:
            throw JWTRefusal(.unsupportedAlgorithm, "the JWT's alg \(alg.prefix(16)) is not accepted: \(accepted)")
        }
    }
}
