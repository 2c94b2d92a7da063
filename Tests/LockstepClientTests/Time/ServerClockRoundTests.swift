import LockstepClient
import LockstepCore
import Testing

/// How rounds of exchanges behave when the network misbehaves, and the periodic loop.
@Suite struct ServerClockRoundTests {
    @Test func aRoundWithNoSuccessfulExchangeThrows() async {
        let world = SimulatedWorld(seed: 1, delays: .queueing, failing: [0])
        let clock = ServerClock(transport: world, timeSource: world)
        await #expect(throws: SimulatedWorld.DroppedConnection.self) { try await clock.resync() }
        #expect(clock.now() == nil)
        #expect(world.exchangeCount == 1)
    }

    @Test func aFailureMidRoundEndsItButKeepsItsSamples() async throws {
        let world = SimulatedWorld(seed: 1, delays: .queueing, failing: [3])
        let clock = ServerClock(transport: world, timeSource: world)
        try await clock.resync()
        #expect(world.exchangeCount == 4)
        #expect(clock.estimate != nil)
    }

    @Test func eachRoundsFirstExchangeMayHaveOpenedTheConnection() async throws {
        let world = SimulatedWorld(seed: 1, delays: .queueing, connectionIdleTimeout: .seconds(60))
        let clock = ServerClock(transport: world, timeSource: world, configuration: .init(targetErrorBound: .zero))
        try await clock.resync()
        world.advance(by: 5 * 60 * 1_000_000_000)
        try await clock.resync()
        #expect(clock.samples.map(\.opensConnection) == [true] + Array(repeating: false, count: 15) + [true] + Array(repeating: false, count: 15))
    }

    @Test func runRetriesAfterAFailureAndThenResyncsPeriodically() async throws {
        // The first round fails at once; the retry 15 s later exchanges 16; then 16 every
        // 5 minutes: at 5:15, 10:15 and 15:15 before the 20-minute horizon.
        let world = SimulatedWorld(seed: 1, delays: .queueing, failing: [0], horizon: .seconds(20 * 60))
        let clock = ServerClock(transport: world, timeSource: world)
        await #expect(throws: CancellationError.self) { try await clock.run() }
        #expect(world.exchangeCount == 1 + 16 + 16 * 3)
        #expect(clock.now() != nil)
    }

    @Test func cancellingRunStopsIt() async throws {
        let world = SimulatedWorld(seed: 1, delays: .queueing)
        let clock = ServerClock(transport: world, timeSource: world)
        let running = Task { try await clock.run() }
        running.cancel()
        await #expect(throws: CancellationError.self) { try await running.value }
    }
}
