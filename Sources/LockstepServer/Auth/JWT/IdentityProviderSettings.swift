public import Foundation
public import LockstepCore

/// How an app accepts JWTs from its own identity provider: whose tokens (issuer), for whom
/// (audience), checked with which keys (a JWKS fetched over HTTPS, or PEM public keys), and
/// which claims name the user and their email.
///
/// Kept per app in the store as the JSON the admin API takes and shows:
///
/// ```json
/// {"issuer": "https://id.example.com/", "audience": "lockstep",
///  "jwksUrl": "https://id.example.com/.well-known/jwks.json",
///  "userClaim": "sub", "emailClaim": "email", "leewaySeconds": 60}
/// ```
///
/// or `"publicKeys": [{"kid": "2024-06", "pem": "-----BEGIN PUBLIC KEY-----…"}]` instead of
/// `jwksUrl`.
public struct IdentityProviderSettings: Sendable, Equatable {
    /// Where the keys come from.
    public enum Keys: Sendable, Equatable {
        /// A JWKS document fetched over HTTPS, cached, and fetched again as ``Limits`` say.
        case jwks(URL)
        /// PEM `PUBLIC KEY` blocks, each with the `kid` tokens name it by (optional).
        case publicKeys([PublicKey])
    }

    public struct PublicKey: Sendable, Equatable {
        public var kid: String?
        public var pem: String

        public init(kid: String?, pem: String) {
            self.kid = kid
            self.pem = pem
        }
    }

    /// The `iss` every token must carry, exactly.
    public var issuer: String
    /// The value `aud` must be (or, as an array, contain).
    public var audience: String
    public var keys: Keys
    /// The claim whose value is the user: with the issuer, it names one Lockstep user for good.
    public var userClaim: String
    /// The claim with the user's email, which becomes their username when they are first seen
    /// (so that invitations to spaces reach them); `nil`: none.
    public var emailClaim: String?
    /// How far `nbf` and `iat` may be ahead of the server's clock (the provider's clock may
    /// run a little fast). `exp` gets none: a token's sockets close when it passes.
    public var leewaySeconds: Double

    public static let maximumLeewaySeconds = 600.0

    public init(
        issuer: String, audience: String, keys: Keys, userClaim: String = "sub", emailClaim: String? = "email", leewaySeconds: Double = 60
    ) {
        self.issuer = issuer
        self.audience = audience
        self.keys = keys
        self.userClaim = userClaim
        self.emailClaim = emailClaim
        self.leewaySeconds = leewaySeconds
    }

    /// Settings from the admin API's JSON, checked: throws a 400 saying what is wrong. PEM keys
    /// are parsed here, so a key that cannot be used is refused when it is set, not when a
    /// token needs it.
    public init(json: JSONObject) throws(AccountError) {
        let known: Set<String> = ["issuer", "audience", "jwksUrl", "publicKeys", "userClaim", "emailClaim", "leewaySeconds"]
        if let unknown = json.keys.sorted().first(where: { !known.contains($0) }) {
            throw AccountError(.badRequest, "unknown setting \"\(unknown.prefix(40))\": use \(known.sorted().joined(separator: ", "))")
        }
        issuer = try Self.text("issuer", in: json)
        audience = try Self.text("audience", in: json)
        userClaim = try Self.text("userClaim", in: json, default: "sub")
        if json["emailClaim"]?.isNull == true {
            emailClaim = nil
        } else {
            emailClaim = try Self.text("emailClaim", in: json, default: "email")
        }
        switch json["leewaySeconds"] {
        case nil:
            leewaySeconds = 60
        case let value?:
            guard let seconds = value.doubleValue, seconds >= 0, seconds <= Self.maximumLeewaySeconds else {
                throw AccountError(.badRequest, "\"leewaySeconds\" must be a number from 0 to \(Int(Self.maximumLeewaySeconds))")
            }
            leewaySeconds = seconds
        }
        switch (json["jwksUrl"], json["publicKeys"]) {
        case (let url?, nil):
            guard let text = url.stringValue else { throw AccountError(.badRequest, "\"jwksUrl\" must be a string") }
            keys = .jwks(try Self.jwksURL(text))
        case (nil, let list?):
            guard let entries = list.arrayValue, !entries.isEmpty, entries.count <= 100 else {
                throw AccountError(.badRequest, "\"publicKeys\" must be an array of 1 to 100 {\"kid\", \"pem\"} objects")
            }
            var keys: [PublicKey] = []
            for entry in entries {
                guard let pem = entry["pem"]?.stringValue else {
                    throw AccountError(.badRequest, "each of \"publicKeys\" needs its \"pem\": a -----BEGIN PUBLIC KEY----- block")
                }
                let kid = entry["kid"]?.stringValue
                do {
                    _ = try JWTPublicKey(pem: pem, kid: kid)
                } catch {
                    throw AccountError(.badRequest, error.description)
                }
                if keys.contains(where: { $0.kid == kid }) {
                    throw AccountError(.badRequest, "two of \"publicKeys\" have the kid \(kid.map { "\"\($0.prefix(64))\"" } ?? "none"): each needs its own")
                }
                keys.append(PublicKey(kid: kid, pem: pem))
            }
            self.keys = .publicKeys(keys)
        default:
            throw AccountError(.badRequest, "give the provider's keys as \"jwksUrl\" (an https URL) or \"publicKeys\" (PEM), one of the two")
        }
    }

    /// The settings as the admin API shows them and the store keeps them.
    public var json: JSONObject {
        var json: JSONObject = [
            "issuer": .string(issuer), "audience": .string(audience), "userClaim": .string(userClaim),
            "emailClaim": emailClaim.map(JSONValue.string) ?? .null, "leewaySeconds": .number(leewaySeconds),
        ]
        switch keys {
        case .jwks(let url):
            json["jwksUrl"] = .string(url.absoluteString)
        case .publicKeys(let keys):
            json["publicKeys"] = .array(keys.map { key in
                var entry: JSONObject = ["pem": .string(key.pem)]
                if let kid = key.kid { entry["kid"] = .string(kid) }
                return .object(entry)
            })
        }
        return json
    }

    private static func text(_ name: String, in json: JSONObject, default: String? = nil) throws(AccountError) -> String {
        guard let value = json[name] else {
            guard let `default` else { throw AccountError(.badRequest, "the settings need \"\(name)\"") }
            return `default`
        }
        guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= 512 else {
            throw AccountError(.badRequest, "\"\(name)\" must be a string of 1 to 512 bytes")
        }
        return text
    }

    /// A JWKS URL: https only, since the keys it brings decide who signs in.
    static func jwksURL(_ text: String) throws(AccountError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw AccountError(.badRequest, "\"jwksUrl\" \(text.prefix(80)) is not a URL")
        }
        guard scheme == "https" else {
            throw AccountError(.badRequest, "\"jwksUrl\" must be an https URL (the keys decide who signs in), not \(scheme.prefix(16))")
        }
        guard url.user == nil, url.password == nil else {
            throw AccountError(.badRequest, "\"jwksUrl\" may not carry a user or password")
        }
        return url
    }
}
