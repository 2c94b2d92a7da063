import LockstepClient
import LockstepCore
import PropertyBased
import Testing

/// Server time ↔ local instant, and waiting for a server time.
@Suite struct ServerClockConversionTests {
    private func calibratedClock(seed: UInt64) async throws -> (ServerClock, SimulatedWorld) {
        let world = SimulatedWorld(seed: seed, delays: .bufferbloat, rate: -30e-6)
        let clock = ServerClock(transport: world, timeSource: world)
        try await clock.resync()
        return (clock, world)
    }

    @Test func serverTimeToLocalInstantAndBackRoundTrips() async throws {
        let (clock, world) = try await calibratedClock(seed: 1)
        await propertyCheck(input: Gen.int64(in: -86_400_000_000_000...86_400_000_000_000)) { distance in
            let target = try #require(clock.now()).nanosecondsSinceEpoch + distance
            let local = try #require(clock.localInstant(atServerTime: target))
            let back = try #require(clock.serverTime(at: local))
            #expect(abs(back.nanosecondsSinceEpoch - target) <= 1)
            #expect(abs(back.nanosecondsSinceEpoch - world.serverTime(at: local)) <= back.errorBound.nanoseconds)
        }
    }

    @Test func sleepingUntilAServerTimeWakesWhenTheServerShowsIt() async throws {
        let (clock, world) = try await calibratedClock(seed: 2)
        let target = try #require(clock.now()).nanosecondsSinceEpoch + 90_000_000_000
        try await clock.sleep(untilServerTime: target)
        let woke = try #require(clock.now())
        #expect(abs(woke.nanosecondsSinceEpoch - target) <= 1)
        #expect(abs(world.serverTime(at: world.now()) - target) <= woke.errorBound.nanoseconds)
    }

    @Test func theContinuousClockDeadlineIsAsFarAwayAsTheServerTime() async throws {
        let (clock, _) = try await calibratedClock(seed: 3)
        let target = try #require(clock.now()).nanosecondsSinceEpoch + 90_000_000_000
        let deadline = try #require(clock.deadline(forServerTime: target))
        // One burst measures no drift yet, so 90 s of server time is 90 s of local time
        // (give or take the moments between reading the two clocks).
        let remaining = ContinuousClock.now.duration(to: deadline)
        #expect(remaining > .milliseconds(89_990) && remaining <= .seconds(90))
    }

    @Test func anUncalibratedClockCannotConvert() async throws {
        let world = SimulatedWorld(seed: 4, delays: .queueing)
        let clock = ServerClock(transport: world, timeSource: world)
        #expect(clock.now() == nil)
        #expect(clock.localInstant(atServerTime: 0) == nil)
        await #expect(throws: ServerClockError.uncalibrated) { try await clock.sleep(untilServerTime: 0) }
    }
}
