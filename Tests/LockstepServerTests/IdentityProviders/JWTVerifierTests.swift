import Foundation
import LockstepCore
@testable import LockstepServer
import PropertyBased
import Testing

/// The checks of a JWT, in the process: every key type Lockstep accepts verifies its own
/// tokens, and each forgery is refused with its own reason.
@Suite("Identity providers: JWT checks", .timeLimit(.minutes(2)))
struct JWTVerifierTests {
    let rsa = TestSigner.rsa()
    let p256 = TestSigner.p256()
    let ed25519 = TestSigner.ed25519()
    var all: [TestSigner] { [rsa, p256, ed25519] }

    /// What the server does with a token: parse, pick the key, verify.
    func check(_ token: String, trusting signers: [TestSigner]? = nil, now: Date = Date()) throws(JWTRefusal) -> VerifiedClaims {
        let settings = TestSigner.settings(signers ?? all)
        let keys = JWTKeySet(keys: (signers ?? all).map { try! JWTPublicKey(pem: $0.publicPEM, kid: $0.kid) })
        let jws = try CompactJWS(token, maximumBytes: 16 * 1024)
        let (algorithm, kid) = try JWTVerifier.algorithm(of: jws)
        return try JWTVerifier.verify(
            jws, key: try keys.key(kid: kid, algorithm: algorithm), settings: settings, now: Int64(now.timeIntervalSince1970 * 1e9))
    }

    func refusal(_ token: String, trusting signers: [TestSigner]? = nil, now: Date = Date()) -> JWTRefusal? {
        do {
            _ = try check(token, trusting: signers, now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test func eachKeyTypeVerifiesItsOwnTokens() throws {
        for signer in all {
            let claims = try check(try signer.token(TestSigner.claims(sub: "sub-\(signer.kid)", ["email": "a@example.com"])))
            #expect(claims.subject == "sub-\(signer.kid)")
            #expect(claims.email == "a@example.com")
        }
    }

    @Test func unsignedAndHMACTokensAreRefused() throws {
        let valid = try rsa.token(TestSigner.claims())
        let parts = valid.split(separator: ".")
        let none = Base64URL.encode(#"{"alg":"none","kid":"rsa-1"}"#.utf8) + "." + parts[1] + "."
        #expect(refusal(none)?.reason == .unsigned)
        #expect(refusal(none)?.message.contains("alg is none") == true)
        let hmac = Base64URL.encode(#"{"alg":"HS256","kid":"rsa-1"}"#.utf8) + "." + parts[1] + "." + parts[2]
        #expect(refusal(hmac)?.reason == .hmac)
        #expect(refusal(hmac)?.message.contains("HMAC") == true)
        let other = Base64URL.encode(#"{"alg":"PS256","kid":"rsa-1"}"#.utf8) + "." + parts[1] + "." + parts[2]
        #expect(refusal(other)?.reason == .unsupportedAlgorithm)
    }

    @Test func aKeyOfAnotherTypeThanTheAlgorithmIsRefused() throws {
        // Signed with the RSA key, but naming the EC key: the EC key cannot verify RS256.
        let token = try rsa.token(TestSigner.claims(), header: ["kid": "ec-1"])
        let refused = try #require(refusal(token))
        #expect(refused.reason == .keyTypeMismatch)
        #expect(refused.message.contains("EC P-256"), "\(refused)")
    }

    @Test func anUnknownKidIsRefused() throws {
        let refused = try #require(refusal(try rsa.token(TestSigner.claims(), header: ["kid": "gone"])))
        #expect(refused.reason == .unknownKey)
        #expect(refused.message.contains("\"gone\""))
        // Without a kid, the one key of the algorithm verifies.
        var header: JSONObject = [:]
        header["kid"] = .null
        #expect(try check(try rsa.token(TestSigner.claims(), header: header)).subject == "user-1")
    }

    @Test func aWrongIssuerOrAudienceIsRefused() throws {
        let issuer = try #require(refusal(try rsa.token(TestSigner.claims(["iss": "https://evil.example/"]))))
        #expect(issuer.reason == .wrongIssuer)
        #expect(issuer.message.contains("evil.example"))
        let audience = try #require(refusal(try rsa.token(TestSigner.claims(["aud": "another-app"]))))
        #expect(audience.reason == .wrongAudience)
        #expect(try check(try rsa.token(TestSigner.claims(["aud": ["other", .string(TestSigner.audience)]]))).subject == "user-1")
    }

    @Test func timesAreCheckedWithTheLeewayOnNbfAndIatOnly() throws {
        let now = Date()
        let expired = try #require(refusal(try rsa.token(TestSigner.claims(now: now.addingTimeInterval(-400))), now: now))
        #expect(expired.reason == .expired)
        #expect(refusal(try rsa.token(TestSigner.claims(["nbf": .integer(Int64(now.timeIntervalSince1970) + 30)])), now: now) == nil)
        let early = try #require(refusal(try rsa.token(TestSigner.claims(["nbf": .integer(Int64(now.timeIntervalSince1970) + 120)])), now: now))
        #expect(early.reason == .notYetValid)
        let future = try #require(refusal(try rsa.token(TestSigner.claims(now: now.addingTimeInterval(120))), now: now))
        #expect(future.reason == .issuedInTheFuture)
        var claims = TestSigner.claims()
        claims["exp"] = nil
        #expect(refusal(try rsa.token(claims))?.reason == .missingClaim)
    }

    @Test func anUnverifiedEmailIsNotTaken() throws {
        let claims = try check(try p256.token(TestSigner.claims(["email": "victim@example.com", "email_verified": false])))
        #expect(claims.email == nil)
    }

    /// Any change to a signed token's bytes, wherever it falls, is refused: as malformed when
    /// it breaks the form, else by its signature (or, in the header, by what the header then says).
    @Test func anyAlteredByteIsRefused() async throws {
        let tokens = try all.map { Array(try $0.token(TestSigner.claims(["email": "a@example.com"])).utf8) }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ".utf8)
        await propertyCheck(count: 600, input: Gen.int(in: 0...2), Gen.int(in: 0...10_000), Gen.element(of: alphabet)) { which, place, replacement in
            var token = tokens[which]
            let index = place % token.count
            guard let replacement, token[index] != replacement else { return }
            token[index] = replacement
            let text = String(decoding: token, as: UTF8.self)
            #expect(refusal(text) != nil, "\(text) was accepted")
        }
    }

    @Test func base64URLRoundTripsAndRefusesOtherAlphabets() async {
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...40)) { bytes in
            let encoded = Base64URL.encode(bytes)
            #expect(Base64URL.decode(encoded) == bytes)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
        }
        for bad in ["a", "ab=", "a+b/", "ab c", "QQ==", "QR"] { #expect(Base64URL.decode(bad) == nil, "\(bad)") }
    }

    @Test func settingsAreCheckedWhenSet() throws {
        let good: JSONObject = ["issuer": "i", "audience": "a", "publicKeys": [["kid": "k", "pem": .string(rsa.publicPEM)]]]
        #expect(try IdentityProviderSettings(json: good).json["userClaim"] == "sub")
        var bad = good
        bad["publicKeys"] = [["kid": "k", "pem": "-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----"]]
        #expect(throws: AccountError.self) { try IdentityProviderSettings(json: bad) }
        bad = good
        bad["jwksUrl"] = "https://id.example/jwks.json"
        #expect(throws: AccountError.self, "both key sources") { try IdentityProviderSettings(json: bad) }
        bad = ["issuer": "i", "audience": "a", "jwksUrl": "http://id.example/jwks.json"]
        #expect(throws: AccountError.self, "plain http") { try IdentityProviderSettings(json: bad) }
        bad = good
        bad["audience"] = nil
        #expect(throws: AccountError.self) { try IdentityProviderSettings(json: bad) }
        #expect(try IdentityProviderSettings(json: IdentityProviderSettings(json: good).json) == IdentityProviderSettings(json: good))
    }
}
