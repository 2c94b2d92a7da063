import LockstepClient
import LockstepCore
import PropertyBased
import Testing

/// A simulated hour of `run()` against a server whose clock gains 20 µs a second.
@Suite struct ServerClockDriftTests {
    @Test(arguments: DelayModel.comparedInNotes)
    func anHourMeasuresTheDriftWithinAFewPartsPerMillion(delays: DelayModel) async throws {
        var rateErrors: [Double] = []
        await propertyCheck(count: 20, input: Gen.uint64()) { seed in
            let world = SimulatedWorld(seed: seed, delays: delays, rate: 20e-6, horizon: .seconds(3_600))
            let clock = ServerClock(transport: world, timeSource: world)
            await #expect(throws: CancellationError.self) { try await clock.run() }
            let estimate = try #require(clock.estimate)
            rateErrors.append(estimate.drift.rate - world.rate)
            #expect(abs(estimate.drift.rate - world.rate) < 6e-6)
            #expect(abs(estimate.drift.rate - world.rate) <= estimate.drift.rateBound)
            // The bound holds across the hour behind and the hour ahead, offline.
            for minutes in stride(from: -60, through: 60, by: 5) {
                let local = world.now() + Int64(minutes) * 60_000_000_000
                let time = try #require(clock.serverTime(at: local))
                #expect(abs(time.nanosecondsSinceEpoch - world.serverTime(at: local)) <= time.errorBound.nanoseconds)
            }
        }
        let sorted = rateErrors.map(abs).sorted()
        let (median, worst) = (sorted[sorted.count / 2], sorted[sorted.count - 1])
        print(
            "ServerClock, 1 h at 20 ppm, \(delays): rate error median \(twoDecimals(median * 1e6)) ppm,",
            "worst \(twoDecimals(worst * 1e6)) ppm over \(sorted.count) runs"
        )
        #expect(median < 2e-6)
    }
}
