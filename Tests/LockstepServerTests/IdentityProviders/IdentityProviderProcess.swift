import AsyncHTTPClient
import ChildProcesses
import Foundation
import LockstepCore
import NIOCore

/// The test identity provider (identity_provider.py) in a process of its own: its JWKS over
/// HTTPS under a certificate its own CA signed (``caFile``), and a control port to mint
/// tokens, forge them, rotate keys, go down, and count the JWKS fetches.
struct IdentityProviderProcess: Sendable {
    let process: ChildProcess
    let directory: URL
    let jwksPort: Int
    let controlPort: Int

    /// Whether Python has what the provider needs; CI installs it (pyjwt, cryptography).
    static var isAvailable: Bool { ExternalTool.hasPythonModule("jwt") && ExternalTool.hasPythonModule("cryptography") }

    var jwksURL: String { "https://127.0.0.1:\(jwksPort)/jwks.json" }
    var caFile: String { directory.appendingPathComponent("ca.pem").path }

    static func start() async throws -> IdentityProviderProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-idp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = ExternalTool.repositoryRoot.appendingPathComponent("Tests/LockstepServerTests/IdentityProviders/identity_provider.py").path
        let process = try ChildProcess.spawn("/usr/bin/env", arguments: ["python3", script, directory.path], output: .errorsOnly)
        let ready = directory.appendingPathComponent("ready.json")
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: ready.path) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                process.send(SIGKILL)
                throw IdentityProviderError("the test identity provider did not start")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let ports = try JSONValue(parsing: Array(try Data(contentsOf: ready)))
        guard let jwks = ports["jwks"]?.integerValue, let control = ports["control"]?.integerValue else {
            throw IdentityProviderError("ready.json has no ports")
        }
        return IdentityProviderProcess(process: process, directory: directory, jwksPort: Int(jwks), controlPort: Int(control))
    }

    func stop() async {
        process.send(SIGTERM)
        _ = await process.waitForExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A token: `kid`'s (an RSA key's by default), with `claims` over valid ones for `user-1`;
    /// the rest of `order` forges it (see identity_provider.py's `mint`).
    func mint(kid: String? = nil, claims: JSONObject = [:], _ order: JSONObject = [:]) async throws -> String {
        var order = order
        if let kid { order["kid"] = .string(kid) }
        order["claims"] = .object(claims)
        guard let token = try await control("POST", "/mint", order)["token"]?.stringValue else { throw IdentityProviderError("no token minted") }
        return token
    }

    /// A new RSA key, in the JWKS from now on; its kid.
    func rotate() async throws -> String {
        guard let kid = try await control("POST", "/rotate")["kid"]?.stringValue else { throw IdentityProviderError("no key made") }
        return kid
    }

    /// The JWKS answers 503 while `down`.
    func setDown(_ down: Bool) async throws {
        _ = try await control("POST", "/down", ["down": .bool(down)])
    }

    /// How many times the JWKS was asked for.
    func fetches() async throws -> Int {
        Int(try await control("GET", "/fetches")["fetches"]?.integerValue ?? -1)
    }

    private func control(_ method: String, _ path: String, _ body: JSONObject = [:]) async throws -> JSONValue {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(controlPort)\(path)")
        request.method = .RAW(value: method)
        if method == "POST" { request.body = .bytes(ByteBuffer(bytes: JSONValue.object(body).jsonBytes)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return try JSONValue(parsing: Array(bytes.readableBytesView))
    }
}

struct IdentityProviderError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
