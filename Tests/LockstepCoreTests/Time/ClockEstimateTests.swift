import LockstepCore
import PropertyBased
import Testing

@Suite struct ClockEstimateTests {
    @Test func conversionsRoundTrip() async {
        await propertyCheck(
            input: Gen.int64(in: 0...1_000_000 * second),
            Gen.int64(in: -2 * bootEpoch...2 * bootEpoch),
            Gen.double(in: -1e-4...1e-4),
            Gen.int64(in: -100_000 * second...100_000 * second)
        ) { anchor, offset, rate, distance in
            let estimate = ClockEstimate(
                anchor: anchor, offset: offset, errorBound: 5 * millisecond,
                drift: ClockDrift(rate: rate, rateBound: 10e-6)
            )
            let local = anchor + distance
            let server = estimate.serverTime(at: local).nanosecondsSinceEpoch
            #expect(abs(estimate.localInstant(atServerTime: server) - local) <= 1)
            let back = estimate.serverTime(at: estimate.localInstant(atServerTime: server)).nanosecondsSinceEpoch
            #expect(abs(back - server) <= 1)
        }
    }

    @Test func theBoundGrowsWithDistanceFromTheAnchorBothWays() {
        let drift = ClockDrift(rate: 0, rateBound: 10e-6)
        let estimate = ClockEstimate(anchor: 100 * second, offset: bootEpoch, errorBound: millisecond, drift: drift)
        // 10 ppm over 100 s is 1 ms; a few nanoseconds more cover rounding.
        #expect((millisecond...millisecond + 3).contains(estimate.errorBound(at: 100 * second)))
        #expect((2 * millisecond...2 * millisecond + 3).contains(estimate.errorBound(at: 200 * second)))
        #expect((2 * millisecond...2 * millisecond + 3).contains(estimate.errorBound(at: 0)))
    }

    @Test func farOffSentinelsSaturateInsteadOfTrapping() {
        let drift = ClockDrift(rate: 1e-5, rateBound: 0)
        let estimate = ClockEstimate(anchor: 0, offset: bootEpoch, errorBound: 0, drift: drift)
        #expect(estimate.localInstant(atServerTime: .max) > 0)
        #expect(estimate.localInstant(atServerTime: .min) == .min)
    }

    @Test func theUncertaintyGrowsByItsOwnRateAndStaysWithinTheBound() {
        let drift = ClockDrift(rate: 0, rateBound: 10e-6, rateUncertainty: 1e-6)
        let estimate = ClockEstimate(anchor: 100 * second, offset: bootEpoch, errorBound: 2 * millisecond, uncertainty: 100_000, drift: drift)
        // 1 ppm over 100 s is 100 µs, either way; a few nanoseconds more cover rounding.
        #expect((200_000...200_003).contains(estimate.uncertainty(at: 200 * second)))
        #expect((200_000...200_003).contains(estimate.uncertainty(at: 0)))
        // Far away the bound, which grows faster from higher up, is still the larger.
        for local in [100 * second, 10_000 * second, -10_000 * second] {
            #expect(estimate.uncertainty(at: local) <= estimate.errorBound(at: local))
        }
        let time = estimate.serverTime(at: 200 * second)
        #expect(time.uncertainty.nanoseconds == estimate.uncertainty(at: 200 * second))
        #expect(time.errorBound.nanoseconds == estimate.errorBound(at: 200 * second))
    }
}
