import LockstepClient
import Testing

@Suite struct ContinuousTimeSourceTests {
    @Test func runsForwardsAndAtContinuousClockSpeed() async throws {
        let source = ContinuousTimeSource()
        let (start, startInstant) = (source.now(), ContinuousClock.now)
        try await source.sleep(until: start + 1_000_000)
        let (end, endInstant) = (source.now(), ContinuousClock.now)
        #expect(end >= start + 1_000_000)
        // Both count the same interval, give or take the moments between paired reads. (Only a
        // suspended machine could tell CLOCK_BOOTTIME from CLOCK_MONOTONIC apart.)
        let difference = startInstant.duration(to: endInstant) - .nanoseconds(end - start)
        #expect(difference > .microseconds(-100) && difference < .microseconds(100))
    }
}
