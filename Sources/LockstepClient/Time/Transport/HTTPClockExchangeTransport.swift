public import AsyncHTTPClient
public import Foundation

/// Exchanges with a Lockstep server's clock endpoint:
/// `GET /time?t1=<t1>` → `{"t1": <echo>, "t2": <receive ns>, "t3": <send ns>}`.
///
/// Reuse one transport (and one `HTTPClient`) for all exchanges: the connection stays alive
/// between them, so only a round's first exchange pays for the TCP and TLS handshakes, and
/// ``ServerClock`` lets that one bound the offset without averaging it.
public struct HTTPClockExchangeTransport: ClockExchangeTransport {
    /// The server's base URL; the endpoint is `time` below it.
    public let serverURL: URL
    private let httpClient: HTTPClient
    private let timeout: Duration

    /// Exchanges with `serverURL`'s `time` endpoint through `httpClient`, giving up on an
    /// exchange after `timeout`.
    ///
    /// ```swift
    /// let clock = ServerClock(transport: HTTPClockExchangeTransport(serverURL: URL(string: "https://sync.example.com/")!))
    /// ```
    public init(serverURL: URL, httpClient: HTTPClient = .shared, timeout: Duration = .seconds(10)) {
        self.serverURL = serverURL
        self.httpClient = httpClient
        self.timeout = timeout
    }

    /// One `GET /time?t1=…`.
    ///
    /// - Throws: ``ClockExchangeError/unexpectedStatus(_:)`` for a status other than 200,
    ///   ``ClockExchangeError/malformedReply(_:)`` for a reply that is not the clock's (or
    ///   echoes another `t1`), and what `HTTPClient` threw for the network.
    public func exchange(t1: Int64) async throws -> ServerStamps {
        let url = serverURL.appending(path: "time")
            .appending(queryItems: [URLQueryItem(name: "t1", value: String(t1))])
        let response = try await httpClient.execute(
            HTTPClientRequest(url: url.absoluteString),
            timeout: .nanoseconds(timeout.nanoseconds)
        )
        let body = try await response.body.collect(upTo: Self.largestReply)
        guard response.status == .ok else { throw ClockExchangeError.unexpectedStatus(Int(response.status.code)) }
        let reply: Reply
        do {
            reply = try JSONDecoder().decode(Reply.self, from: Data(body.readableBytesView))
        } catch {
            throw ClockExchangeError.malformedReply("not a time reply: \(error)")
        }
        // A stale reply (say, from a retried request) would pair our t4 with another t1.
        guard reply.t1 == t1 else { throw ClockExchangeError.malformedReply("echoed t1 \(reply.t1), sent \(t1)") }
        return ServerStamps(received: reply.t2, sent: reply.t3)
    }

    /// Three integers of JSON; anything much longer is not a time reply.
    private static let largestReply = 1024

    private struct Reply: Decodable {
        var t1: Int64
        var t2: Int64
        var t3: Int64
    }
}
