import Foundation
@testable import LockstepClient
import LockstepCore
import Synchronization
@testable import lockstep
@testable import lockstep_bench
import Testing

/// A socket whose upgrade request the server never answers: closed after the request (as a
/// stopping `lockstep serve` sometimes closes a connection it accepted: likely what the
/// convergence checker hung on at a graceful restart), or held open in silence.
/// `WebSocketClient` waits for the answer forever and does not hear cancellation; the session
/// must give up on it.
@Suite("A socket upgrade the server never answers", .timeLimit(.minutes(2)))
struct UnansweredUpgradeTests {
    @Test("the session gives the socket up, syncs over HTTP, and stops", arguments: [UnansweringListener.Manner.close, .silence])
    func givesUp(_ manner: UnansweringListener.Manner) async throws {
        let listener = try UnansweringListener(manner)
        let server = try await TestServer.start()
        let store = temporaryStore()
        defer {
            listener.stop()
            removeStore(store)
        }
        var configuration = LockstepClient.Configuration(
            heartbeatInterval: .seconds(2), backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)), pollingWindow: .seconds(3))
        configuration.socketURL = URL(string: "ws://127.0.0.1:\(listener.port)/sock/1/\(server.appID)/websocket")!
        let client = try LockstepClient(
            storeDirectory: store, server: server.baseURL, app: server.appID, token: try await server.createUser(), configuration: configuration)
        try await client.bucket("things").put("a", ["n": 1])
        await client.sync.start()

        // The upgrade is given up after 2.5 heartbeats (5 s); polling sends the change.
        try await client.sync.waitUntilIdle(timeout: .seconds(60))
        #expect(listener.requests > 0)

        // The session may be in an upgrade again (the socket is tried every polling window).
        let stopped = Locked(false)
        Task {
            await client.close()
            stopped.withLock { $0 = true }
        }
        try await eventually("the session stops", timeout: .seconds(20)) { stopped.withLock { $0 } }
        await server.stop()
    }
}

/// A TCP listener on 127.0.0.1 that reads each connection's request and then closes the
/// connection unanswered, or keeps it open unanswered.
final class UnansweringListener: Sendable {
    enum Manner: Sendable, CustomTestStringConvertible {
        case close
        case silence

        var testDescription: String { self == .close ? "closed after the request" : "held open in silence" }
    }

    let port: Int
    private let descriptor: Int32
    private let state = Mutex<(requests: Int, held: [Int32])>((0, []))

    /// Requests read so far.
    var requests: Int { state.withLock { $0.requests } }

    init(_ manner: Manner) throws {
        let (descriptor, port) = try BenchProcesses.loopbackSocket(listeningWith: 16)
        self.descriptor = descriptor
        self.port = Int(port)
        // Accepting and reading block: a thread of their own, not the cooperative pool's.
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else { return }
                var request: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while !request.ends(with: Array("\r\n\r\n".utf8)) {
                    let count = read(connection, &buffer, buffer.count)
                    guard count > 0 else { break }
                    request += buffer[0..<count]
                }
                state.withLock { state in
                    state.requests += 1
                    if manner == .silence { state.held.append(connection) }
                }
                if manner == .close { Glibc.close(connection) }
            }
        }
    }

    func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
        for connection in state.withLock({ $0.held }) { Glibc.close(connection) }
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
