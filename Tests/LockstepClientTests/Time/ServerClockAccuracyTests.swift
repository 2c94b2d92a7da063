import LockstepClient
import LockstepCore
import PropertyBased
import Testing

/// A burst of eight exchanges over each delay model of `notes/clock.md`, many random seeds each:
/// the notes' filters had eight samples, so these bursts are set to eight (a round's default is
/// 16; `ServerClockLawTests` holds those to the issue's targets).
@Suite struct ServerClockAccuracyTests {
    /// What the notes measured for the "min-δ of 8" and "mean of lowest-δ quarter" filters, as
    /// (median, p99) in ms; the clock must do at least as well as the better median and the
    /// worse p99 of the two (p99 over a thousand trials varies by a millisecond or so).
    private static let limits: [DelayModel: (median: Double, p99: Double)] = [
        .jitter: (median: 4.7, p99: 25.3),
        .queueing: (median: 1.9, p99: 9.2),
        .bufferbloat: (median: 2.1, p99: 13.8),
    ]

    @Test(arguments: DelayModel.comparedInNotes)
    func eightExchangesBeatTheFixedFilters(delays: DelayModel) async throws {
        let (figures, uncovered) = await Self.burstsOfEight(over: delays)
        let limit = try #require(Self.limits[delays])
        #expect(uncovered == 0)
        #expect(figures.median <= limit.median)
        #expect(figures.p99 <= limit.p99)
    }

    /// On the realistic jitter link the mean of 8 exchanges has p99 |error| 6.4 ms (σ/4 · 2.58);
    /// the clock must stay within the 12 ms target, and its bar must hold every time.
    @Test func eightExchangesMeetTheTargetUnderRealisticJitter() async throws {
        let (figures, uncovered) = await Self.burstsOfEight(over: .mildJitter)
        #expect(uncovered == 0)
        #expect(figures.p99 <= 12)
    }

    /// A fresh HTTP client's first exchange waits a handshake's round trip before its request
    /// leaves, all of it on the up leg (θ off by 40 ms on these links). The clock lets that
    /// exchange bound the offset, and learns only from its down leg: the targets still hold.
    @Test(arguments: [DelayModel.mildJitter, .bufferbloat])
    func aNewConnectionStillMeetsTheTargets(delays: DelayModel) async throws {
        let (figures, uncovered) = await Self.burstsOfEight(over: delays, connecting: true)
        #expect(uncovered == 0)
        #expect(figures.p99 <= 12)
    }

    /// Counted like the others, the handshake's exchange pulls the mean of a jittery link by
    /// 5 ms (40 ms over 8), and makes the jitter look like one-sided queueing.
    @Test func theHandshakeWouldPullAJitterEstimate() async throws {
        let (figures, _) = await Self.burstsOfEight(over: .mildJitter, connecting: true)
        let (naive, _) = await Self.burstsOfEight(over: .mildJitter, connecting: true, claimingAnOpenConnection: true)
        #expect(figures.median * 1.3 < naive.median)
        #expect(figures.p99 < naive.p99)
    }

    /// A thousand fresh clocks, each calibrated by one burst of exactly eight exchanges (never
    /// stopping early, to compare with the notes' eight samples): their errors, and how many
    /// fell outside their bar.
    ///
    /// - Parameters:
    ///   - connecting: The first exchange opens the connection (see ``SimulatedWorld``).
    ///   - claimingAnOpenConnection: The transport says no exchange opens a connection.
    private static func burstsOfEight(
        over delays: DelayModel, connecting: Bool = false, claimingAnOpenConnection: Bool = false
    ) async -> (figures: ErrorFigures, uncovered: Int) {
        var errors: [Int64] = []
        var uncovered = 0
        // The same thousand worlds every run: a p99 over a thousand trials sits close enough to
        // its target (12.2 ms in one unseeded run, 8.9-11 ms in others) that fresh random
        // worlds would make the figure, and the test, differ from run to run.
        for seed in UInt64(1)...1_000 {
            let world = SimulatedWorld(seed: seed, delays: delays, connectionIdleTimeout: connecting ? .seconds(60) : nil)
            let transport: any ClockExchangeTransport = claimingAnOpenConnection ? AlwaysOpen(world: world) : world
            let clock = ServerClock(
                transport: transport, timeSource: world, configuration: .init(exchangesPerRound: 8, targetErrorBound: .zero))
            do {
                try await clock.resync()
            } catch {
                Issue.record("seed \(seed): \(error)")
                continue
            }
            guard let time = clock.now() else {
                Issue.record("seed \(seed): no time after a burst")
                continue
            }
            let error = time.nanosecondsSinceEpoch - world.serverTime(at: world.now())
            if abs(error) > time.errorBound.nanoseconds { uncovered += 1 }
            errors.append(error)
            #expect(world.exchangeCount == 8, "seed \(seed)")
        }
        let figures = ErrorFigures(nanoseconds: errors)
        let setting = connecting ? (claimingAnOpenConnection ? ", handshake counted" : ", handshake bounds only") : ""
        print("ServerClock, 8 exchanges, \(delays)\(setting): \(figures), bound held \(errors.count - uncovered)/\(errors.count)")
        return (figures, uncovered)
    }

    @Test func aBurstStopsEarlyOnceTheBoundIsTight() async throws {
        await propertyCheck(count: 50, input: Gen.uint64()) { seed in
            let world = SimulatedWorld(seed: seed, delays: .lan)
            let clock = ServerClock(transport: world, timeSource: world, configuration: .init(targetErrorBound: .milliseconds(2)))
            try await clock.resync()
            #expect(world.exchangeCount == 1)
            let time = try #require(clock.now())
            #expect(time.errorBound < .milliseconds(2))
        }
    }
}

/// A transport that says its connection is always open, whatever the network underneath does.
private struct AlwaysOpen: ClockExchangeTransport {
    let world: SimulatedWorld
    var mayOpenConnection: Bool { false }

    func exchange(t1: Int64) async throws -> ServerStamps {
        try await world.exchange(t1: t1)
    }
}
