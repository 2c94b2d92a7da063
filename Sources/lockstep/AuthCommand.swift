import ArgumentParser
import AsyncHTTPClient
import CommandLineSupport
import Foundation
import LockstepCore
import NIOCore
import NIOHTTP1

/// `lockstep auth jwt set|show|clear --app A --token ADMIN …`: an app's sign-in with its own
/// identity provider, through the admin API (`/1/{app}/__admin__/jwt`) of a running server.
struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth", abstract: "How an app's users sign in.", subcommands: [JWTCommand.self])
}

struct JWTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwt",
        abstract: "Accept JWTs from the app's own identity provider (Auth0, Firebase, Cognito, your own…) as tokens.",
        discussion: """
            A JWT the provider signed is then accepted wherever a Lockstep token is (X-Simperium-Token, \
            Authorization: Bearer, a socket's init), as the user its claims name, made on first sight.
            """,
        subcommands: [JWTSet.self, JWTShow.self, JWTClear.self])
}

/// Which server and app, and the admin token that may change it.
struct AdminAPIOptions: ParsableArguments {
    @Option(help: "The server's base URL.")
    var url: String = "http://127.0.0.1:8080"

    @Option(help: "The app id.")
    var app: String

    @Option(help: "The app's admin token (env LOCKSTEP_ADMIN_TOKEN).")
    var token: String?

    /// Sends one request to `/1/{app}/__admin__/{path}`; the answer's JSON, or what the server
    /// refused as a sentence.
    func call(_ method: HTTPMethod, _ path: String, body: JSONValue? = nil) async throws -> JSONValue? {
        guard let token = token ?? ProcessInfo.processInfo.environment["LOCKSTEP_ADMIN_TOKEN"], !token.isEmpty else {
            throw ValidationError("give the app's admin token with --token or LOCKSTEP_ADMIN_TOKEN")
        }
        var request = HTTPClientRequest(url: url + "/1/\(app)/__admin__/\(path)")
        request.method = method
        request.headers.add(name: "X-Simperium-Token", value: token)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body.jsonBytes))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 4 * 1024 * 1024)
        let json = try? JSONValue(parsing: bytes.readableBytesView)
        guard (200..<300).contains(response.status.code) else {
            throw CommandError("\(response.status.code): \(json?["error"]?["message"]?.stringValue ?? String(buffer: bytes))")
        }
        return json
    }
}

struct JWTSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Accept the app's provider's JWTs, checked with its JWKS or PEM public keys.",
        discussion: """
            The JWKS is fetched once now: a URL that serves none, or whose certificate the server does not trust \
            (see serve --jwks-ca-file), is refused with why.
            """)

    @OptionGroup var options: AdminAPIOptions

    @Option(help: "The iss every token must carry, exactly.")
    var issuer: String

    @Option(help: "The aud every token must carry (or contain).")
    var audience: String

    @Option(name: .customLong("jwks-url"), help: "The provider's JWKS, over https.")
    var jwksURL: String?

    @Option(
        name: .customLong("public-key"),
        help: ArgumentHelp("A PEM public key file (RSA, EC P-256 or Ed25519), as KID=FILE or FILE; repeat for more.", valueName: "kid=file"))
    var publicKeys: [String] = []

    @Option(name: .customLong("user-claim"), help: "The claim that names the user.")
    var userClaim: String = "sub"

    @Option(name: .customLong("email-claim"), help: "The claim with the user's email, their username when first seen (so invitations to spaces reach them); \"\" for none.")
    var emailClaim: String = "email"

    @Option(name: .customLong("leeway-seconds"), help: "How far nbf and iat may be ahead of the server's clock.")
    var leewaySeconds: Double = 60

    func validate() throws {
        guard (jwksURL == nil) != publicKeys.isEmpty else { throw ValidationError("give --jwks-url or --public-key, one of the two") }
    }

    func run() async throws {
        var settings: JSONObject = [
            "issuer": .string(issuer), "audience": .string(audience), "userClaim": .string(userClaim),
            "emailClaim": emailClaim.isEmpty ? .null : .string(emailClaim), "leewaySeconds": .number(leewaySeconds),
        ]
        if let jwksURL {
            settings["jwksUrl"] = .string(jwksURL)
        } else {
            settings["publicKeys"] = .array(try publicKeys.map { argument in
                let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
                let (kid, path) = parts.count == 2 ? (parts[0], parts[1]) : (nil, argument)
                guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else { throw ValidationError("cannot read the key file \(path)") }
                var entry: JSONObject = ["pem": .string(pem)]
                if let kid { entry["kid"] = .string(kid) }
                return .object(entry)
            })
        }
        let report = try await options.call(.PUT, "jwt", body: .object(settings))
        say("app \(options.app) now accepts JWTs of \(issuer) for \(audience)")
        if let report { say(JSONSerializer(prettyPrinted: true).string(report)) }
    }
}

struct JWTShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print the app's provider settings and the keys the server holds.")

    @OptionGroup var options: AdminAPIOptions

    func run() async throws {
        if let report = try await options.call(.GET, "jwt") { say(JSONSerializer(prettyPrinted: true).string(report)) }
    }
}

struct JWTClear: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Accept no more JWTs for the app.",
        discussion: "Sockets open with a JWT stay until it expires; every new request with one is refused.")

    @OptionGroup var options: AdminAPIOptions

    func run() async throws {
        _ = try await options.call(.DELETE, "jwt")
        say("app \(options.app) accepts no more JWTs")
    }
}
