import Crypto
import Foundation
import LockstepCore
import Testing

/// `lockstep auth jwt …`, the built tool run as a separate process against a real server, as
/// an app's admin would run it: the provider set from a PEM file, its JWT then accepted, and
/// cleared.
@Suite("lockstep auth jwt", .timeLimit(.minutes(2)))
struct AuthCommandTests {
    @Test func theAppsProviderIsSetShownAndClearedFromTheCommandLine() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let key = P256.Signing.PrivateKey()
        let pem = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-jwt-\(UUID().uuidString).pem")
        try key.publicKey.pemRepresentation.write(to: pem, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: pem) }
        func jwt(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            try await LockstepTool.run(
                ["auth", "jwt"] + arguments + ["--url", server.baseURL.absoluteString, "--app", server.appID, "--token", server.app.adminToken])
        }

        let set = try await jwt(["set", "--issuer", "https://id.example/", "--audience", "sync", "--public-key", "k1=\(pem.path)"])
        #expect(set.status == 0, "\(set.output)")
        #expect(set.output.contains("now accepts JWTs of https://id.example/ for sync"), "\(set.output)")
        let shown = try await jwt(["show"])
        #expect(shown.status == 0 && shown.output.contains("\"ES256\"") && shown.output.contains("\"k1\""), "\(shown.output)")

        let now = Int64(Date().timeIntervalSince1970)
        let claims: JSONValue = ["iss": "https://id.example/", "aud": "sync", "sub": "s-1", "email": "cli@example.com", "exp": .integer(now + 60)]
        let token = try Self.token(claims, kid: "k1", key: key)
        #expect(try await server.request("POST", "notes/i/n1", token: token, body: ["a": 1]).status == 200)
        #expect(try await server.objects("notes", token: token) == ["n1": ["a": 1]])

        let refused = try await jwt(["set", "--issuer", "i", "--audience", "a", "--jwks-url", "http://id.example/jwks.json"])
        #expect(refused.status != 0 && refused.output.contains("must be an https URL"), "\(refused.output)")
        #expect(try await jwt(["clear"]).output.contains("accepts no more JWTs"))
        #expect(try await server.request("GET", "notes/i/n1", token: token).status == 401)
        let cleared = try await jwt(["show"])
        #expect(cleared.status != 0 && cleared.output.contains("accepts no JWTs"), "\(cleared.output)")
    }

    /// An ES256 JWT of `claims`, as an identity provider signs one.
    static func token(_ claims: JSONValue, kid: String, key: P256.Signing.PrivateKey) throws -> String {
        func encoded(_ bytes: some DataProtocol) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let header: JSONValue = ["alg": "ES256", "kid": .string(kid)]
        let input = encoded(header.jsonBytes) + "." + encoded(claims.jsonBytes)
        return input + "." + encoded(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }
}
