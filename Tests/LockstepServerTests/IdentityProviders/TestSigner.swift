import Crypto
import CryptoExtras
import Foundation
import LockstepCore
@testable import LockstepServer

/// Signs JWTs in the test process, as an identity provider would, with keys of each type
/// Lockstep accepts.
struct TestSigner: Sendable {
    enum Key: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
    }

    var kid: String
    var key: Key

    /// One RSA key for the whole run: making one takes a while.
    static let rsaKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    static func rsa(_ kid: String = "rsa-1") -> TestSigner { TestSigner(kid: kid, key: .rsa(rsaKey)) }
    static func p256(_ kid: String = "ec-1") -> TestSigner { TestSigner(kid: kid, key: .p256(P256.Signing.PrivateKey())) }
    static func ed25519(_ kid: String = "ed-1") -> TestSigner { TestSigner(kid: kid, key: .ed25519(Curve25519.Signing.PrivateKey())) }

    var algorithm: String {
        switch key {
        case .rsa: "RS256"
        case .p256: "ES256"
        case .ed25519: "EdDSA"
        }
    }

    var publicPEM: String {
        switch key {
        case .rsa(let key): key.publicKey.pemRepresentation
        case .p256(let key): key.publicKey.pemRepresentation
        case .ed25519(let key): key.publicKey.pemRepresentation
        }
    }

    func sign(_ input: [UInt8]) throws -> [UInt8] {
        switch key {
        case .rsa(let key): Array(try key.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation)
        case .p256(let key): Array(try key.signature(for: input).rawRepresentation)
        case .ed25519(let key): Array(try key.signature(for: input))
        }
    }

    static let issuer = "https://id.test.example/"
    static let audience = "lockstep-tests"

    /// Claims valid now for `sub`, over which `extra` is laid.
    static func claims(sub: String = "user-1", now: Date = Date(), lifetime: TimeInterval = 300, _ extra: JSONObject = [:]) -> JSONObject {
        let seconds = Int64(now.timeIntervalSince1970)
        var claims: JSONObject = [
            "iss": .string(issuer), "aud": .string(audience), "sub": .string(sub), "iat": .integer(seconds),
            "exp": .integer(seconds + Int64(lifetime)),
        ]
        claims.merge(extra) { _, new in new }
        return claims
    }

    /// A compact JWT of `claims`, its header naming this key (or `header` laid over it).
    func token(_ claims: JSONObject, header extra: JSONObject = [:]) throws -> String {
        var header: JSONObject = ["alg": .string(algorithm), "typ": "JWT", "kid": .string(kid)]
        header.merge(extra) { _, new in new }
        let input = Base64URL.encode(JSONValue.object(header).jsonBytes) + "." + Base64URL.encode(JSONValue.object(claims).jsonBytes)
        return input + "." + Base64URL.encode(try sign(Array(input.utf8)))
    }

    /// Settings that trust `signers`' keys as PEM.
    static func settings(_ signers: [TestSigner], leewaySeconds: Double = 60) -> IdentityProviderSettings {
        IdentityProviderSettings(
            issuer: issuer, audience: audience, keys: .publicKeys(signers.map { .init(kid: $0.kid, pem: $0.publicPEM) }),
            leewaySeconds: leewaySeconds)
    }
}
