import LockstepCore

/// The keys an app's tokens may be signed with, and which key a token's header picks.
struct JWTKeySet: Sendable {
    var keys: [JWTPublicKey]
    /// Keys of the JWKS that cannot be used, by kid, with why: a token naming one is told so.
    var unusable: [String: String] = [:]

    /// The keys of a JWKS document (`{"keys": [...]}`); keys that cannot be used are kept
    /// aside with their reason, so that one odd key does not cost the others.
    init(jwks: JSONValue) throws(JWTKeyError) {
        guard let entries = jwks["keys"]?.arrayValue else { throw JWTKeyError("the JWKS is not a JSON object with a \"keys\" array") }
        keys = []
        for entry in entries {
            guard let jwk = entry.objectValue else { continue }
            do {
                keys.append(try JWTPublicKey(jwk: jwk))
            } catch {
                if let kid = jwk["kid"]?.stringValue { unusable[kid] = error.description }
            }
        }
    }

    init(keys: [JWTPublicKey]) {
        self.keys = keys
    }

    /// Whether a token's `kid` is one this set knows, usable or not.
    func knows(kid: String) -> Bool {
        keys.contains { $0.kid == kid } || unusable[kid] != nil
    }

    /// The key that verifies a token whose header says `kid` and `algorithm`.
    ///
    /// A named key must exist and be of the type the algorithm needs; a token that names
    /// none is verified by the one key of its algorithm, when there is exactly one.
    func key(kid: String?, algorithm: JWTAlgorithm) throws(JWTRefusal) -> JWTPublicKey {
        guard let kid else {
            let candidates = keys.filter { $0.algorithm == algorithm }
            guard candidates.count == 1, let key = candidates.first else {
                throw JWTRefusal(
                    .unknownKey,
                    "the JWT names no kid, and the app's identity provider has \(candidates.count) \(algorithm.rawValue) keys: a token must name its key when there is not exactly one")
            }
            return key
        }
        let shown = "\"\(kid.prefix(64))\""
        guard let key = keys.first(where: { $0.kid == kid }) else {
            if let why = unusable[kid] { throw JWTRefusal(.keyTypeMismatch, "the JWT's kid \(shown) names a key this server cannot use: \(why)") }
            throw JWTRefusal(.unknownKey, "the JWT's kid \(shown) is not a key of the app's identity provider")
        }
        guard key.algorithm == algorithm else {
            throw JWTRefusal(
                .keyTypeMismatch,
                "the JWT says \(algorithm.rawValue), but its kid \(shown) is an \(key.typeName) key, which verifies \(key.algorithm.rawValue) only")
        }
        return key
    }
}
