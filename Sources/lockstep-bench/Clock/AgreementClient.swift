import AsyncHTTPClient
import Foundation
import LockstepClient
import LockstepCore
import Synchronization

/// One device of the agreement benchmark: a streaming socket of its own through the relay, and
/// a `ServerClock` over it as a `LockstepClient` runs one while connected: a burst of exchanges
/// first, then continuous calibration within its default budget.
final class AgreementClient: Sendable {
    let clock: ServerClock
    private let socket: ClockSocket
    private let httpClient: HTTPClient
    private let exchanges: CountingTransport
    private let calibrating: Task<Void, any Error>

    private init(clock: ServerClock, socket: ClockSocket, httpClient: HTTPClient, exchanges: CountingTransport) {
        self.clock = clock
        self.socket = socket
        self.httpClient = httpClient
        self.exchanges = exchanges
        calibrating = Task { try await clock.calibrateContinuously() }
    }

    /// Opens the socket to `serverURL`, makes the first burst, and leaves the clock calibrating.
    static func start(serverURL: URL, configuration: ServerClock.Configuration) async throws -> AgreementClient {
        let httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        do {
            let socket = try await ClockSocket.open(
                serverURL: serverURL, fallback: HTTPClockExchangeTransport(serverURL: serverURL, httpClient: httpClient))
            let exchanges = CountingTransport(counting: socket.transport)
            let clock = ServerClock(transport: exchanges, configuration: configuration)
            do {
                try await clock.resync()
            } catch {
                await socket.close()
                throw error
            }
            return AgreementClient(clock: clock, socket: socket, httpClient: httpClient, exchanges: exchanges)
        } catch {
            try? await httpClient.shutdown()
            throw error
        }
    }

    /// How many exchanges the clock has made, the burst's included.
    var exchangeCount: Int { exchanges.count }

    func stop() async {
        calibrating.cancel()
        _ = await calibrating.result
        await socket.close()
        try? await httpClient.shutdown()
    }
}

/// A transport that counts the exchanges it passes to another.
private final class CountingTransport: ClockExchangeTransport {
    private let inner: any ClockExchangeTransport
    private let counted = Mutex(0)

    init(counting inner: any ClockExchangeTransport) {
        self.inner = inner
    }

    var count: Int { counted.withLock { $0 } }
    var mayOpenConnection: Bool { inner.mayOpenConnection }

    func exchange(t1: Int64) async throws -> ServerStamps {
        try await inner.exchange(t1: t1)
    }

    func sample(stampingWith timeSource: any MonotonicTimeSource) async throws -> ClockSample {
        counted.withLock { $0 += 1 }
        return try await inner.sample(stampingWith: timeSource)
    }
}
