import Foundation
import LockstepClient
import LockstepCore
import Testing

/// The HTTP transports against a real (loopback) HTTP server.
@Suite struct HTTPTransportTests {
    /// Answers `GET /time?t1=…` the way the Lockstep server does, from a clock `offset` ahead of
    /// this machine's monotonic clock; any other path gets a 404.
    private static func timeServer(
        offset: Int64,
        echo: @escaping @Sendable (Int64) -> Int64 = { $0 }
    ) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { requestLine in
            let target = requestLine.split(separator: " ").dropFirst().first ?? ""
            guard let components = URLComponents(string: String(target)), components.path == "/time",
                  let t1 = components.queryItems?.first(where: { $0.name == "t1" })?.value.flatMap({ Int64($0) })
            else { return .init(status: 404) }
            let received = ContinuousTimeSource().now() + offset
            let sent = ContinuousTimeSource().now() + offset
            let body = #"{"t1":\#(echo(t1)),"t2":\#(received),"t3":\#(sent)}"#
            return .init(headers: [("Content-Type", "application/json")], body: body)
        }
    }

    @Test func exchangesWithTheTimeEndpoint() async throws {
        let server = try Self.timeServer(offset: 1_000)
        defer { server.stop() }
        let transport = HTTPClockExchangeTransport(serverURL: server.baseURL)
        let before = ContinuousTimeSource().now()
        let stamps = try await transport.exchange(t1: 42)
        let after = ContinuousTimeSource().now()
        #expect((before + 1_000...after + 1_000).contains(stamps.received))
        #expect(stamps.received <= stamps.sent)
        #expect(stamps.resolution == .zero)
    }

    @Test func rejectsAReplyToAnotherExchange() async throws {
        let server = try Self.timeServer(offset: 0, echo: { $0 + 1 })
        defer { server.stop() }
        let transport = HTTPClockExchangeTransport(serverURL: server.baseURL)
        await #expect(throws: ClockExchangeError.self) { try await transport.exchange(t1: 42) }
    }

    @Test func reportsAnUnexpectedStatus() async throws {
        let server = try Self.timeServer(offset: 0)
        defer { server.stop() }
        let transport = HTTPClockExchangeTransport(serverURL: server.baseURL.appending(path: "elsewhere"))
        await #expect(throws: ClockExchangeError.unexpectedStatus(404)) { try await transport.exchange(t1: 42) }
    }

    @Test func calibratesAServerClockOverLoopback() async throws {
        let offset: Int64 = 1_748_761_200_123_456_789
        let server = try Self.timeServer(offset: offset)
        defer { server.stop() }
        let clock = ServerClock(transport: HTTPClockExchangeTransport(serverURL: server.baseURL))
        try await clock.resync()
        let estimate = try #require(clock.estimate)
        print(
            "ServerClock over loopback HTTP:",
            "error \(abs(estimate.offset - offset)) ns, bound \(estimate.errorBound) ns"
        )
        #expect(abs(estimate.offset - offset) <= estimate.errorBound)
        // The bar lies within the intersection of the samples' intervals, each widened for the
        // drift the clock cannot rule out yet (well under a millisecond over one round), so it
        // is hardly wider than the quickest exchange's round trip, however busy the machine was.
        let quickest = try #require(clock.samples.map(\.roundTrip).min())
        #expect(estimate.errorBound <= quickest + 1_000_000)
    }

    @Test func readsTheDateHeader() async throws {
        let server = try LoopbackHTTPServer { _ in .init(headers: [("Date", "Sun, 01 Jun 2025 07:00:00 GMT")]) }
        defer { server.stop() }
        let stamps = try await HTTPDateClockExchangeTransport(url: server.baseURL).exchange(t1: 0)
        let second: Int64 = 1_748_761_200_000_000_000
        #expect(stamps == ServerStamps(received: second, sent: second, resolution: .seconds(1)))
    }

    /// A server whose `Date` header follows a clock `offset` ahead of the monotonic clock.
    private static func dateServer(offset: Int64) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { _ in
            let seconds = (ContinuousTimeSource().now() + offset) / 1_000_000_000
            return .init(headers: [("Date", httpDate(Date(timeIntervalSince1970: Double(seconds))))])
        }
    }

    /// `date` as an IMF-fixdate, `Sun, 01 Jun 2025 07:00:00 GMT`.
    private static func httpDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func twoDigits(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "??" }
        return "\(weekdays[parts.weekday! - 1]), \(twoDigits(parts.day)) \(months[parts.month! - 1]) \(parts.year!) "
            + "\(twoDigits(parts.hour)):\(twoDigits(parts.minute)):\(twoDigits(parts.second)) GMT"
    }

    @Test(arguments: [1, 8])
    func aDateHeaderCalibratesWithinItsBound(exchanges: Int) async throws {
        let offset: Int64 = 1_748_761_200_123_456_789
        let server = try Self.dateServer(offset: offset)
        defer { server.stop() }
        let clock = ServerClock(
            transport: HTTPDateClockExchangeTransport(url: server.baseURL),
            configuration: .init(exchangesPerRound: exchanges)
        )
        try await clock.resync()
        let estimate = try #require(clock.estimate)
        #expect(abs(estimate.offset - offset) <= estimate.errorBound)
        if exchanges == 1 {
            // One exchange knows the second, not where in it: at least ±0.5 s.
            #expect(estimate.errorBound >= 500_000_000)
        }
    }
}
