import LockstepCore
import LockstepServer
import Testing

@Suite("Secrets are never logged")
struct SecretsTests {
    @Test func tokensKeysAndPasswordsStayOutOfTraceLogs() async throws {
        let capture = LogCapture()
        let server = try await TestServer.start(logger: capture.logger(level: .trace))
        defer { Task { await server.stop() } }
        let password = "hunter2-very-secret"
        let user = try await server.createUser("frank@example.com", password: password)
        _ = try await user.request("POST", "note/i/n1", body: ["a": 1])
        _ = try await user.request("GET", "note/i/missing")
        _ = try await server.request("GET", "/1/\(server.appID)/note/index", headers: ["X-Simperium-Token": "wrong0000000000000000000000000000"])
        _ = try await server.request(
            "POST", "/1/\(server.appID)/authorize/", headers: ["X-Simperium-API-Key": server.app.apiKey],
            body: ["username": "frank@example.com", "password": .string("wrong-\(password)")])
        let logs = capture.text
        #expect(!logs.isEmpty, "trace logging produced nothing; the test would prove nothing")
        for secret in [user.token, password, server.app.apiKey, server.app.adminToken, "wrong0000000000000000000000000000"] {
            #expect(!logs.contains(secret), "a secret appears in the logs")
        }
    }
}
