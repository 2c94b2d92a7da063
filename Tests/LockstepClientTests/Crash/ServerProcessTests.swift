#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing
@testable import lockstep
@testable import lockstep_bench

/// The test servers' own start: a port free when chosen may be taken before the server binds it.
@Suite("Test server processes")
struct ServerProcessTests {
    /// The first attempt creates the default app and prints its credentials, then loses its
    /// port; the next, on the same data, finds the app and prints none. The credentials are
    /// still read (a CI run's convergence checker failed with `noCredentials` so).
    @Test func credentialsPrintedByAnAttemptThatLostItsPortAreStillRead() async throws {
        let (taken, takenPort) = try BenchProcesses.loopbackSocket(listeningWith: 1)
        defer { close(taken) }
        let (arguments, remove) = try CrashStore.sqlite.place()
        defer { Task { await remove() } }
        let ports = Mutex([Int(takenPort)])
        let server = try await ServerProcess.start(arguments) {
            try ports.withLock { ports in ports.isEmpty ? try BenchProcesses.freePort() : ports.removeFirst() }
        }
        defer { server.kill() }
        #expect(server.port != Int(takenPort))
        let (app, admin) = try await server.credentials()
        let token = try await server.issueToken(app: app, admin: admin, username: "someone")
        #expect(!token.isEmpty)
    }
}
