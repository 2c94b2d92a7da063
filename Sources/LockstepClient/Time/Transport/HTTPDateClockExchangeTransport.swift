public import AsyncHTTPClient
public import Foundation

/// A fallback that calibrates from any HTTP server's `Date` header, for when no Lockstep
/// server is reachable yet (or to sanity-check one).
///
/// The header has one-second resolution and servers truncate it, so each sample says only
/// that the server's clock read somewhere in `[Date, Date + 1 s)` during the exchange: error
/// bounds are at least half a second wider than with `GET /time`. Several exchanges that
/// straddle a change of second narrow this down, which is why a burst still helps.
public struct HTTPDateClockExchangeTransport: ClockExchangeTransport {
    /// Any URL that answers a `HEAD` request.
    public let url: URL
    private let httpClient: HTTPClient
    private let timeout: Duration

    /// Exchanges by `HEAD` requests to `url` through `httpClient`, giving up on one after
    /// `timeout`.
    public init(url: URL, httpClient: HTTPClient = .shared, timeout: Duration = .seconds(10)) {
        self.url = url
        self.httpClient = httpClient
        self.timeout = timeout
    }

    /// One `HEAD` request; its `Date` header, to the second, is both stamps.
    ///
    /// - Throws: ``ClockExchangeError/missingDate`` when the answer has no `Date` header that
    ///   parses, and what `HTTPClient` threw for the network.
    public func exchange(t1: Int64) async throws -> ServerStamps {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .HEAD
        let response = try await httpClient.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
        guard let header = response.headers.first(name: "date"),
              let seconds = HTTPDate.secondsSinceEpoch(header)
        else { throw ClockExchangeError.missingDate }
        let stamp = seconds * 1_000_000_000
        return ServerStamps(received: stamp, sent: stamp, resolution: .seconds(1))
    }
}
