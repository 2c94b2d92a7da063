import ArgumentParser
import CommandLineSupport
import Crypto
import CryptoExtras
import Foundation
import LockstepCore
import LockstepServer
import Logging

/// `lockstep-bench auth`: the CPU one token check costs, a JWT of the app's identity provider
/// (RS256, ES256, EdDSA) against a Lockstep token looked up in the SQLite store, in one
/// process and one run: `AccountService.authenticate`, as every request and socket `init`
/// calls it, with the user already seen (a user's first JWT also makes them).
///
/// Rounds alternate the kinds; each kind's figure is the median of its rounds' CPU time (user
/// and system, the whole process) per check.
struct BenchAuth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth", abstract: "CPU per token check: an identity provider's JWT (RS256, ES256, EdDSA) against a Lockstep token.")

    @Option(help: "Checks per kind per round.")
    var checks = 5_000

    @Option(help: "Rounds; each kind's median is reported.")
    var rounds = 5

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "lockstep-bench")
        logger.logLevel = .error
        let store = try SQLiteStore(path: directory.appendingPathComponent("bench.sqlite").path)
        let services = LockstepServices(store: store, limits: Limits(), clock: ServerClockSource(), logger: logger)
        let app = try await services.accounts.createApp(name: "bench")
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let p256 = P256.Signing.PrivateKey()
        let ed25519 = Curve25519.Signing.PrivateKey()
        try await services.accounts.identityProviders.set(
            appID: app.appID,
            settings: IdentityProviderSettings(
                issuer: "https://id.bench.example/", audience: "bench",
                keys: .publicKeys([
                    .init(kid: "rs", pem: rsa.publicKey.pemRepresentation), .init(kid: "es", pem: p256.publicKey.pemRepresentation),
                    .init(kid: "ed", pem: ed25519.publicKey.pemRepresentation),
                ])))
        let now = Int64(Date().timeIntervalSince1970)
        let claims: JSONValue = [
            "iss": "https://id.bench.example/", "aud": "bench", "sub": "bench-user", "email": "bench@example.com",
            "iat": .integer(now), "exp": .integer(now + 3600),
        ]
        let kinds: [(name: String, token: String)] = [
            ("Lockstep token (SQLite lookup)", try await services.accounts.issueToken(appID: app.appID, username: "token@example.com").accessToken),
            ("JWT RS256 (RSA 2048)", try Self.jwt(claims, kid: "rs", alg: "RS256") { Array(try rsa.signature(for: $0, padding: .insecurePKCS1v1_5).rawRepresentation) }),
            ("JWT ES256 (P-256)", try Self.jwt(claims, kid: "es", alg: "ES256") { Array(try p256.signature(for: $0).rawRepresentation) }),
            ("JWT EdDSA (Ed25519)", try Self.jwt(claims, kid: "ed", alg: "EdDSA") { Array(try ed25519.signature(for: $0)) }),
        ]
        // The first check of each makes the JWT's user; it is not measured.
        for kind in kinds { _ = try await services.accounts.authenticate(appID: app.appID, token: kind.token) }
        var samples = Array(repeating: [Double](), count: kinds.count)
        for round in 0..<rounds {
            // Alternated: each round starts with another kind.
            for offset in 0..<kinds.count {
                let index = (round + offset) % kinds.count
                let start = ProcessCPU.now()
                for _ in 0..<checks { _ = try await services.accounts.authenticate(appID: app.appID, token: kinds[index].token) }
                samples[index].append((ProcessCPU.now() - start) / Double(checks))
            }
        }
        let medians = samples.map { $0.sorted()[$0.count / 2] }
        say("CPU per check (median of \(rounds) rounds of \(checks) checks each, this process's user + system time):")
        for (index, kind) in kinds.enumerated() {
            let ratio = index == 0 ? "" : String(format: "  (%.1f× the token lookup)", medians[index] / medians[0])
            say("  \(kind.name.padding(toLength: 32, withPad: " ", startingAt: 0)) \(Measure.format(seconds: medians[index]))\(ratio)")
        }
    }

    /// A compact JWT of `claims`, signed by `sign`.
    static func jwt(_ claims: JSONValue, kid: String, alg: String, sign: ([UInt8]) throws -> [UInt8]) throws -> String {
        let header: JSONValue = ["alg": .string(alg), "typ": "JWT", "kid": .string(kid)]
        let input = base64URL(header.jsonBytes) + "." + base64URL(claims.jsonBytes)
        return input + "." + base64URL(try sign(Array(input.utf8)))
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
