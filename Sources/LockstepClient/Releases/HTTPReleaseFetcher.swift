public import AsyncHTTPClient
public import LockstepCore
import NIOCore

/// Fetches windows and keys from a Lockstep server's `/releases` routes (or a CDN in front).
///
/// ```swift
/// let timeline = ReleaseTimeline(store: "main", time: clock, fetcher: HTTPReleaseFetcher(baseURL: "https://game.example.com"))
/// ```
///
/// The routes need no token. Windows and keys are immutable and say how long they may be
/// cached, so a CDN in front of the server can answer most fetches.
public struct HTTPReleaseFetcher: ReleaseFetching {
    /// The server's (or CDN's) base URL, without a trailing slash.
    public let baseURL: String
    let client: HTTPClient
    let timeout: TimeAmount

    /// `baseURL` without a trailing slash: `https://game.example.com` (one is dropped).
    /// Fetches go through `client` and give up after `timeoutSeconds`.
    public init(baseURL: String, client: HTTPClient = .shared, timeoutSeconds: Int64 = 10) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
        self.timeout = .seconds(timeoutSeconds)
    }

    /// `GET /releases/{store}/windows/{start}`.
    ///
    /// - Throws: ``ReleaseFetchError`` for a status other than 200 (409 not yet, 410 expired,
    ///   404 unknown store), a `ReleaseFormatError` for a body that is not a window, and what
    ///   `HTTPClient` threw for the network.
    public func window(store: String, start: Int64) async throws -> ReleaseWindow {
        let (status, body) = try await get("/releases/\(store)/windows/\(start)")
        guard status == 200 else { throw Self.error(status, body) }
        return try ReleaseWindow(json: try JSONValue(parsing: body))
    }

    /// `GET /releases/{store}/keys/{time}`; `nil` when the server answers that the key is not
    /// released yet.
    ///
    /// - Throws: ``ReleaseFetchError`` for any other refusal (410 for a key older than a day),
    ///   a `ReleaseFormatError` for a body that is not a key, and what `HTTPClient` threw.
    public func key(store: String, time: Int64) async throws -> ReleasedKey? {
        let (status, body) = try await get("/releases/\(store)/keys/\(time)")
        if status == 404, (try? JSONValue(parsing: body))?["error"]?["reason"]?.stringValue == "not_released" { return nil }
        guard status == 200 else { throw Self.error(status, body) }
        return try ReleasedKey(json: try JSONValue(parsing: body))
    }

    private func get(_ path: String) async throws -> (Int, [UInt8]) {
        let request = HTTPClientRequest(url: baseURL + path)
        let response = try await client.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return (Int(response.status.code), Array(body.readableBytesView))
    }

    private static func error(_ status: Int, _ body: [UInt8]) -> ReleaseFetchError {
        let message = (try? JSONValue(parsing: body))?["error"]?["message"]?.stringValue ?? String(decoding: body.prefix(200), as: UTF8.self)
        return ReleaseFetchError(status: status, message: message)
    }
}
