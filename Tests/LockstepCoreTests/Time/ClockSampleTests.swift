import LockstepCore
import PropertyBased
import Testing

@Suite struct ClockSampleTests {
    @Test func offsetAndRoundTripFollowTheExchangeFormulas() {
        // Offset 1 s, 30 ms up, 10 ms down, 2 ms at the server.
        let sample = ClockSample(t1: 0, t2: 1_030_000_000, t3: 1_032_000_000, t4: 42_000_000)
        #expect(sample.roundTrip == 40_000_000)
        #expect(sample.offset == ((sample.t2 - sample.t1) + (sample.t3 - sample.t4)) / 2)
        #expect(sample.offset == 1_010_000_000)
        #expect(sample.errorBound == 20_000_000)
        #expect(sample.offsetBounds == 990_000_000...1_030_000_000)
        #expect(sample.localMidpoint == 21_000_000)
    }

    @Test func serverResolutionWidensTheBoundsUpwards() {
        // A `Date` header stamped "second 100" was read somewhere in [100 s, 101 s).
        let second: Int64 = 1_000_000_000
        let sample = ClockSample(t1: 0, t2: 100 * second, t3: 100 * second, t4: 40_000_000, serverResolution: second)
        #expect(sample.offsetBounds == (100 * second - 40_000_000)...(101 * second))
        #expect(sample.errorBound == second / 2 + 20_000_000)
    }

    @Test func backwardsTimeIsImplausible() {
        #expect(!ClockSample(t1: 10, t2: 0, t3: 0, t4: 5).isPlausible)
        #expect(!ClockSample(t1: 0, t2: 10, t3: 5, t4: 20).isPlausible)
        #expect(!ClockSample(t1: 0, t2: 0, t3: 30, t4: 20).isPlausible)
        #expect(ClockSample(t1: 0, t2: 0, t3: 20, t4: 20).isPlausible)
    }

    @Test func theTrueOffsetLiesWithinHalfTheRoundTrip() async {
        await propertyCheck(
            input: Gen.int64(in: -2_000_000_000_000_000_000...2_000_000_000_000_000_000),
            Gen.int64(in: 0...5_000_000_000_000),
            Gen.int64(in: 0...2_000_000_000), Gen.int64(in: 0...2_000_000_000), Gen.int64(in: 0...10_000_000)
        ) { offset, t1, up, down, processing in
            let t2 = t1 + offset + up
            let sample = ClockSample(t1: t1, t2: t2, t3: t2 + processing, t4: t2 + processing - offset + down)
            #expect(sample.offsetBounds.contains(offset))
            #expect(abs(sample.offset - offset) <= sample.errorBound)
            #expect(sample.roundTrip == up + down)
            #expect(sample.offset - offset == (up - down) / 2 || sample.offset - offset == (up - down - 1) / 2)
        }
    }
}
