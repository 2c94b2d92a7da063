import LockstepCore

/// A JWT as sent: `header.payload.signature`, each part base64url (RFC 7515's compact
/// serialization), with the header and payload parsed as JSON objects.
///
/// Parsing checks only the form; nothing here is trusted until ``JWTVerifier`` has checked
/// the signature over ``signingInput`` (the first two parts exactly as sent).
struct CompactJWS: Sendable {
    var header: JSONObject
    var payload: JSONObject
    /// `header.payload` as sent: what the signature covers.
    var signingInput: [UInt8]
    var signature: [UInt8]

    /// Whether `token` has the form of a JWT rather than a Lockstep token (hex, no dots): the
    /// one test every token pays, a scan of its bytes.
    static func looksLikeJWT(_ token: String) -> Bool {
        token.utf8.contains(UInt8(ascii: "."))
    }

    init(_ token: String, maximumBytes: Int) throws(JWTRefusal) {
        guard token.utf8.count <= maximumBytes else {
            throw JWTRefusal(.malformed, "the JWT is \(token.utf8.count) bytes long, more than the \(maximumBytes) this server accepts")
        }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw JWTRefusal(.malformed, "a JWT has three parts separated by dots (header.payload.signature); this one has \(parts.count)")
        }
        header = try Self.object(parts[0], named: "header")
        payload = try Self.object(parts[1], named: "payload")
        guard let signature = Base64URL.decode(utf8: parts[2]) else {
            throw JWTRefusal(.malformed, "the JWT's signature is not base64url")
        }
        self.signature = signature
        signingInput = Array(token.utf8[parts[0].startIndex..<parts[1].endIndex])
    }

    private static func object(_ part: Substring.UTF8View, named name: String) throws(JWTRefusal) -> JSONObject {
        guard let bytes = Base64URL.decode(utf8: part) else { throw JWTRefusal(.malformed, "the JWT's \(name) is not base64url") }
        guard case .object(let members)? = try? JSONValue(parsing: bytes) else {
            throw JWTRefusal(.malformed, "the JWT's \(name) is not a JSON object")
        }
        return members
    }
}
