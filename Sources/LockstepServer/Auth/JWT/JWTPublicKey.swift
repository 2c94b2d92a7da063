import Crypto
import CryptoExtras
import Foundation
import LockstepCore

/// One public key of an identity provider, from its JWKS or from a PEM file, with the
/// one algorithm it verifies (``JWTAlgorithm``).
struct JWTPublicKey: Sendable {
    enum Material: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    /// The key's id, which tokens name in their header; `nil` for a PEM key given without one.
    var kid: String?
    var material: Material

    /// The one algorithm this key verifies.
    var algorithm: JWTAlgorithm {
        switch material {
        case .rsa: .rs256
        case .p256: .es256
        case .ed25519: .edDSA
        }
    }

    /// The key's type as a JWK names it, for messages.
    var typeName: String {
        switch material {
        case .rsa: "RSA"
        case .p256: "EC P-256"
        case .ed25519: "OKP Ed25519"
        }
    }

    /// Whether `signature` is this key's over `input`, as ``algorithm`` signs.
    func isValidSignature(_ signature: [UInt8], for input: [UInt8]) -> Bool {
        switch material {
        case .rsa(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input, padding: .insecurePKCS1v1_5)
        case .p256(let key):
            // JWS carries ECDSA signatures as r ‖ s, 32 bytes each, not DER.
            guard signature.count == 64, let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: input)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: input)
        }
    }

    /// A key of a JWKS (RFC 7517): `kty` RSA (`n`, `e`), EC with `crv` P-256 (`x`, `y`), or OKP
    /// with `crv` Ed25519 (`x`). Throws a sentence saying why a key cannot be used.
    init(jwk: JSONObject) throws(JWTKeyError) {
        kid = jwk["kid"]?.stringValue
        let name = kid.map { "key \"\($0.prefix(64))\"" } ?? "a key without a kid"
        if let use = jwk["use"]?.stringValue, use != "sig" {
            throw JWTKeyError("\(name) is for \"\(use.prefix(16))\", not for signatures (\"sig\")")
        }
        func part(_ member: String) throws(JWTKeyError) -> [UInt8] {
            guard let text = jwk[member]?.stringValue, let bytes = Base64URL.decode(text), !bytes.isEmpty else {
                throw JWTKeyError("\(name) needs \"\(member)\" in base64url")
            }
            return bytes
        }
        let type = jwk["kty"]?.stringValue ?? ""
        let curve = jwk["crv"]?.stringValue
        do {
            switch (type, curve) {
            case ("RSA", _):
                material = .rsa(try _RSA.Signing.PublicKey(n: try part("n"), e: try part("e")))
            case ("EC", "P-256"?):
                let x = try part("x"), y = try part("y")
                guard x.count == 32, y.count == 32 else { throw JWTKeyError("\(name) has coordinates of the wrong length for P-256") }
                material = .p256(try P256.Signing.PublicKey(x963Representation: [0x04] + x + y))
            case ("OKP", "Ed25519"?):
                material = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: try part("x")))
            default:
                throw JWTKeyError(
                    "\(name) is kty \(type.prefix(16))\(curve.map { " crv \($0.prefix(16))" } ?? ""): only RSA, EC P-256 and OKP Ed25519 keys are used")
            }
        } catch let error as JWTKeyError {
            throw error
        } catch {
            throw JWTKeyError("\(name) is not a valid \(type.prefix(16)) public key (RSA keys need 2048 bits or more)")
        }
        if let alg = jwk["alg"]?.stringValue, alg != algorithm.rawValue {
            throw JWTKeyError("\(name) is \(typeName) but says alg \(alg.prefix(16)): such a key verifies \(algorithm.rawValue) only")
        }
    }

    /// A key from a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) block: RSA, P-256 or Ed25519.
    init(pem: String, kid: String?) throws(JWTKeyError) {
        self.kid = kid
        if let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem) {
            material = .rsa(key)
        } else if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            material = .p256(key)
        } else if let key = try? Curve25519.Signing.PublicKey(pemRepresentation: pem) {
            material = .ed25519(key)
        } else {
            throw JWTKeyError(
                "\(kid.map { "the key \"\($0.prefix(64))\"" } ?? "a key") is not a PEM public key (-----BEGIN PUBLIC KEY-----) of RSA (2048 bits or more), EC P-256 or Ed25519")
        }
    }

    /// The key as PEM, as the admin API shows it.
    var pemRepresentation: String {
        switch material {
        case .rsa(let key): key.pemRepresentation
        case .p256(let key): key.pemRepresentation
        case .ed25519(let key): key.pemRepresentation
        }
    }
}

/// Why a key (of a JWKS or a PEM file) cannot be used.
struct JWTKeyError: Error, Sendable, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
