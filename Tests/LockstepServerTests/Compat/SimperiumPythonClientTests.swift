import Foundation
import Testing

/// simperium3 from PyPI, an unmodified Simperium HTTP client, against a real server.
/// `.ci/run` installs it; elsewhere the test runs when it is installed (`pip install simperium3`).
@Suite("Compatibility: simperium3 (Python)")
struct SimperiumPythonClientTests {
    static let available = ExternalTool.hasPythonModule("simperium.core")

    @Test(.enabled(if: available || ExternalTool.isCI, "needs `pip install simperium3==0.1.5`"))
    func simperium3DrivesTheHTTPAPI() async throws {
        #expect(Self.available, "simperium3 is not installed; .ci/run installs it with pip")
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let script = ExternalTool.repositoryRoot.appendingPathComponent("Tests/Compat/simperium3_client.py").path
        let result = try await ExternalTool.run(
            ["python3", script],
            environment: [
                "LOCKSTEP_HOST": "127.0.0.1:\(server.port)", "LOCKSTEP_APP": server.appID,
                "LOCKSTEP_API_KEY": server.app.apiKey, "LOCKSTEP_ADMIN_TOKEN": server.app.adminToken,
            ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("simperium3 OK"), "\(result.output)")
    }
}
