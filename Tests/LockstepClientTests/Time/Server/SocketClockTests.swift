import CommandLineSupport
import Foundation
@testable import lockstep
@testable import LockstepClient
import LockstepCore
import Synchronization
import Testing

/// `ServerClock` over the streaming socket: the transport's own bookkeeping, then a real client
/// against a real server whose clock is set a known offset ahead.
@Suite struct SocketClockTests {
    static let offset: Int64 = 2_345_678_000

    /// A fallback that answers at once (a server 5 s ahead, no delay) and counts its exchanges.
    final class CountingTransport: ClockExchangeTransport {
        let count = Mutex(0)
        func exchange(t1: Int64) async throws -> ServerStamps {
            count.withLock { $0 += 1 }
            return ServerStamps(received: t1 + 5 * 1_000_000_000, sent: t1 + 5 * 1_000_000_000)
        }
    }

    /// Frames the transport wrote, in order, for the test to answer.
    final class Wire: Sendable {
        let (frames, written) = AsyncStream.makeStream(of: String.self)
        func send(_ frame: String) { written.yield(frame) }
        func next() async -> String? {
            var iterator = frames.makeAsyncIterator()
            return await iterator.next()
        }
    }

    @Test func anExchangeGoesOutAsAFrameAndItsAnswerIsStampedOnArrival() async throws {
        let fallback = CountingTransport()
        let transport = SocketClockExchangeTransport(fallback: fallback)
        let wire = Wire()
        let socket = transport.attach { wire.send($0) }
        #expect(transport.isSocketAttached)
        let timeSource = ContinuousTimeSource()
        let exchange = Task { try await transport.sample(stampingWith: timeSource) }
        let frame = try #require(await wire.next())
        let t1 = try #require(Int64(frame.dropFirst(2)))
        #expect(frame == "t:\(t1)")
        #expect(!transport.receive("0:c:[]"))
        #expect(transport.receive("t:\(t1 + 1):7:8")) // nobody waits for that one: consumed, ignored
        #expect(transport.receive("t:\(t1):1000:2000"))
        let sample = try await exchange.value
        #expect(sample.t1 == t1 && sample.t2 == 1000 && sample.t3 == 2000)
        #expect(sample.t4 >= t1 && sample.t4 <= timeSource.now())
        #expect(fallback.count.withLock { $0 } == 0)
        // The socket was open before the round: its first exchange opens no connection.
        #expect(!transport.mayOpenConnection)
        transport.detach(socket)
        #expect(transport.mayOpenConnection)
    }

    @Test func aClosingSocketFailsTheWaitingExchangeAndLaterOnesTakeTheFallback() async throws {
        let fallback = CountingTransport()
        let transport = SocketClockExchangeTransport(fallback: fallback)
        let wire = Wire()
        let socket = transport.attach { wire.send($0) }
        let exchange = Task { try await transport.sample(stampingWith: ContinuousTimeSource()) }
        _ = await wire.next()
        transport.detach(socket)
        await #expect(throws: SocketClosed.self) { try await exchange.value }
        #expect(!transport.isSocketAttached)
        let sample = try await transport.sample(stampingWith: ContinuousTimeSource())
        #expect(fallback.count.withLock { $0 } == 1)
        #expect(sample.offset > 4 * 1_000_000_000)
    }

    @Test func aStreamingClientCalibratesOverItsSocketWhileHTTPTimeFails() async throws {
        let server = try await TestServer.start(clockOffset: Self.offset)
        let store = temporaryStore()
        // The client's HTTP server answers every request 503 (and counts `GET /time`): whatever
        // the clock learns came over the socket.
        let timeRequests = Mutex(0)
        let http = try LoopbackHTTPServer { requestLine in
            if requestLine.contains("/time") { timeRequests.withLock { $0 += 1 } }
            return .init(status: 503)
        }
        defer { http.stop() }
        do {
            let token = try await server.createUser()
            var configuration = LockstepClient.Configuration(
                editTimes: NoEditTimes(), heartbeatInterval: .seconds(2),
                backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)))
            configuration.logger.logLevel = .critical
            configuration.socketURL = URL(string: "ws://127.0.0.1:\(server.port)/sock/1/\(server.appID)/websocket")
            let client = try LockstepClient(
                storeDirectory: store, server: http.baseURL, app: server.appID, token: token,
                configuration: configuration)
            _ = try client.bucket("notes")
            await client.sync.start()
            try await eventually("the socket to stream") { client.sync.state == .streaming }
            // The clock's first round may have started over HTTP before the socket was up, and
            // failed; a round asked for now goes over the socket.
            try await eventually("a round over the socket") { (try? await client.clock.resync()) != nil }
            let httpExchanges = timeRequests.withLock { $0 }
            #expect(httpExchanges <= 1, "only a round begun before the socket was up may try HTTP")
            let local = ContinuousTimeSource().now()
            let truth = WallClock.offsetFromMonotonic() + Self.offset
            let estimate = try #require(client.clock.estimate)
            let error = estimate.offset(at: local) - truth
            #expect(error.magnitude <= estimate.errorBound(at: local).magnitude, "error \(error) ns, bar \(estimate.errorBound) ns")
            // A bar this wide would hold for an offset of zero too; the test would prove nothing.
            #expect(estimate.errorBound < Self.offset / 10)
            #expect(!client.clock.samples.isEmpty)
            await client.close()
        } catch {
            removeStore(store)
            await server.stop()
            throw error
        }
        removeStore(store)
        await server.stop()
    }
}
