import AsyncHTTPClient
import Foundation
import LockstepCore
import Logging
import Testing
import WSClient
@testable import lockstep

/// `lockstep serve` and the token commands as an operator runs them: files only the server's
/// account can read, warnings when they are wider, and tokens revoked from the command line.
@Suite("lockstep serve: files and tokens", .serialized, .timeLimit(.minutes(2)))
struct ServeCommandTests {
    @Test func aNewDataDirectoryIsPrivateAndTokensAreRevokedFromTheCommandLine() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data").path
        let server = try ToolProcess.launch("lockstep", name: "serve", arguments: ["serve", "--data-dir", data, "--port", "0"])
        defer { server.kill() }
        let listening = try #require(await server.next(startingWith: "Lockstep is listening on ", within: .seconds(30)), "\(server.transcript)")
        let base = String(listening.dropFirst("Lockstep is listening on ".count).prefix { $0 != "," })
        for (path, mode) in [(data, 0o700), (data + "/lockstep.sqlite", 0o600), (data + "/server.key", 0o600), (data + "/default-app.json", 0o600)] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == mode, "\(path)")
        }
        let credentials = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: data + "/default-app.json"))))
        let app = try #require(credentials["app_id"]?.stringValue)

        let issued = try await LockstepTool.run(["tokens", "create", "--data-dir", data, "--app", app, "--user", "Robin"])
        #expect(issued.status == 0, "\(issued.output)")
        let token = try #require(issued.output.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(try await Self.status(base + "/1/\(app)/note/index", token: token) == 200)
        let revoked = try await LockstepTool.run(["tokens", "revoke", "--data-dir", data, "--app", app, "--user", "ROBIN"])
        #expect(revoked.status == 0 && revoked.output.contains("revoked 1 token"), "\(revoked.output)")
        #expect(try await Self.status(base + "/1/\(app)/note/index", token: token) == 401, "the running server refuses it at once")
        let again = try await LockstepTool.run(["tokens", "revoke", "--data-dir", data, "--app", app, "--token", token])
        #expect(again.status != 0 && again.output.contains("no such token"), "\(again.output)")
    }

    @Test func aDataDirectoryOthersCanReadIsWarnedAbout() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-wide-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try ToolProcess.launch("lockstep", name: "serve", arguments: ["serve", "--data-dir", data, "--port", "0"])
        defer { server.kill() }
        _ = await server.next(startingWith: "Lockstep is listening on ", within: .seconds(30))
        #expect(server.transcript.contains("has mode 0755") && server.transcript.contains("chmod 700"), "\(server.transcript)")
    }

    @Test func aTrustedProxyThatIsNoAddressStopsTheServerBeforeItMakesAnything() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-never-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let result = try await LockstepTool.run(["serve", "--data-dir", data, "--port", "0", "--trusted-proxy", "10.0.0.0/8", "nginx"])
        #expect(result.status != 0)
        #expect(result.output.contains("\"nginx\" is not an address"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: data))
    }

    /// `--allowed-origin` takes origins only; the environment's list, space or comma separated,
    /// when no flag is given.
    @Test func anAllowedOriginThatIsNoOriginStopsTheServerBeforeItMakesAnything() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-never-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let result = try await LockstepTool.run([
            "serve", "--data-dir", data, "--port", "0", "--allowed-origin", "https://portal.example.com", "--allowed-origin",
            "portal.example.com/app",
        ])
        #expect(result.status != 0)
        #expect(result.output.contains("\"portal.example.com/app\" is not an origin"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: data))

        let options = try NetworkOptions.parse(["--allowed-origin", "https://portal.example.com", "--allowed-origin", "http://127.0.0.1:8081"])
        #expect(try options.origins().allowed == ["https://portal.example.com", "http://127.0.0.1:8081"])
    }

    /// Streaming sockets are served with no task of their own, so the HTTP server's graceful
    /// stop cannot wait on them: each is closed as the server quiesces, and the server exits.
    @Test func aStoppedServerClosesItsStreamingSocketsGoingAwayAndExits() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-stop-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try ToolProcess.launch("lockstep", name: "serve", arguments: ["serve", "--data-dir", data, "--port", "0"])
        defer { server.kill() }
        let listening = try #require(await server.next(startingWith: "Lockstep is listening on ", within: .seconds(30)), "\(server.transcript)")
        let base = String(listening.dropFirst("Lockstep is listening on ".count).prefix { $0 != "," })
        let credentials = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: data + "/default-app.json"))))
        let app = try #require(credentials["app_id"]?.stringValue)
        let issued = try await LockstepTool.run(["tokens", "create", "--data-dir", data, "--app", app, "--user", "Robin"])
        let token = try #require(issued.output.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })

        let (authorized, authorizing) = AsyncStream.makeStream(of: String.self)
        let url = base.replacingOccurrences(of: "http://", with: "ws://") + "/sock/1/\(app)/websocket"
        let socket = Task {
            try await WebSocketClient.connect(url: url, logger: Logger(label: "stop-test")) { inbound, outbound, _ in
                try await outbound.write(.text(#"0:init:{"name":"note","token":"\#(token)","clientid":"stop","api":1.1,"cmd":"cv:"}"#))
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message { authorizing.yield(text) }
                }
            }
        }
        var replies = authorized.makeAsyncIterator()
        #expect(await replies.next()?.hasPrefix("0:auth:") == true)

        server.terminate()
        let close = try await socket.value
        #expect(close?.closeCode == .goingAway)
        #expect(await server.exitStatus(within: .seconds(20)) == 0, "\(server.transcript)")
    }

    static func status(_ url: String, token: String) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "X-Simperium-Token", value: token)
        return Int(try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code)
    }
}
