import LockstepCore
import PropertyBased
import Testing

@Suite struct ClockEstimatorTests {
    @Test func oneSampleGivesItsOwnOffsetAndHalfItsRoundTrip() throws {
        var estimator = ClockEstimator()
        let sample = ClockSample.exchange(at: 5 * second, up: 30 * millisecond, down: 10 * millisecond) { _ in
            bootEpoch
        }
        let accepted = estimator.record(sample)
        #expect(accepted)
        let estimate = try #require(estimator.estimate)
        #expect(estimate.offset == sample.offset)
        #expect(estimate.anchor == sample.localMidpoint)
        // Plus what the tolerance allows for drift during the exchange itself: a few µs.
        #expect(estimate.errorBound >= sample.errorBound)
        #expect(estimate.errorBound <= sample.errorBound + 5_000)
    }

    @Test func implausibleSamplesChangeNothing() {
        var estimator = ClockEstimator()
        let accepted = estimator.record(ClockSample(t1: 10, t2: 0, t3: 0, t4: 5))
        #expect(!accepted)
        #expect(estimator.estimate == nil)
        #expect(estimator.history == ClockHistory())
    }

    @Test func queueingTailsDoNotBiasTheEstimate() throws {
        // 20 ms floors each way; the downlink queues 0–150 ms on all but one exchange, the
        // uplink on none but another. A mean is 34 ms off; the floors are not. (The filter
        // expects the fastest trip a little above the floor, as with exponential waits, while
        // here it sits right on it: that costs a few ms, within the bar.)
        var estimator = ClockEstimator()
        let downQueue: [Int64] = [0, 40, 150, 90, 60, 120, 30, 80]
        let upQueue: [Int64] = [5, 3, 0, 4, 2, 6, 1, 3]
        for index in 0..<8 {
            let sample = ClockSample.exchange(
                at: Int64(index) * 200 * millisecond,
                up: (20 + upQueue[index]) * millisecond, down: (20 + downQueue[index]) * millisecond
            ) { _ in bootEpoch }
            estimator.record(sample)
        }
        let estimate = try #require(estimator.estimate)
        #expect(abs(estimate.offset - bootEpoch) <= 6 * millisecond)
        #expect(abs(estimate.offset - bootEpoch) <= estimate.errorBound)
    }

    @Test func everyEstimateContainsTheTruth() async {
        await propertyCheck(
            input: Gen.int64(in: 0...60 * millisecond).array(of: 1...24),
            Gen.int64(in: 0...60 * millisecond).array(of: 24...24),
            Gen.double(in: -80e-6...80e-6)
        ) { ups, downs, rate in
            var estimator = ClockEstimator()
            let offset = { (local: Int64) in bootEpoch + Int64(rate * Double(local)) }
            for (index, up) in ups.enumerated() {
                let t1 = Int64(index) * 7 * second
                estimator.record(.exchange(at: t1, up: up, down: downs[index], offset: offset))
                if index % 4 == 3 { estimator.completeRound() }
                guard let estimate = estimator.estimate else {
                    Issue.record("no estimate after a plausible sample")
                    return
                }
                for local in [estimate.anchor, estimate.anchor + 90 * second] {
                    #expect(abs(estimate.offset(at: local) - offset(local)) <= estimate.errorBound(at: local))
                }
            }
        }
    }

    @Test func aSteppedServerClockReplacesTheOldSamples() throws {
        var estimator = ClockEstimator()
        for index in 0..<4 {
            estimator.record(.exchange(at: Int64(index) * second, up: 20 * millisecond, down: 25 * millisecond) { _ in
                bootEpoch
            })
        }
        estimator.completeRound()
        let stepped = bootEpoch + 3 * second
        estimator.record(.exchange(at: 10 * second, up: 20 * millisecond, down: 25 * millisecond) { _ in stepped })
        let estimate = try #require(estimator.estimate)
        #expect(abs(estimate.offset - stepped) <= estimate.errorBound)
        #expect(estimator.history.samples.count == 1)
    }

    /// A quiet link, 20 ms plus up to a millisecond each way, and rounds of 16 a minute apart:
    /// a 10 ms step of the server's clock stays inside every sample's bounds (±20 ms), so no
    /// exchange contradicts the others, but it lies far outside the uncertainties (tens of µs).
    /// The round after it ends the model: the rounds before go, and the samples with them.
    @Test func aStepWithinTheBoundsIsCaughtByTheStatistics() throws {
        var estimator = ClockEstimator()
        var random = Xorshift(seed: 3)
        let stepAt = 10 * minute
        let offset = { (local: Int64) in bootEpoch + (local >= stepAt ? 10 * millisecond : 0) }
        for round in 0..<12 {
            for exchange in 0..<16 {
                let up = 20 * millisecond + Int64.random(in: 0...millisecond, using: &random)
                let down = 20 * millisecond + Int64.random(in: 0...millisecond, using: &random)
                estimator.record(.exchange(at: Int64(round) * minute + Int64(exchange) * 50 * millisecond, up: up, down: down, offset: offset))
            }
            estimator.completeRound()
            let estimate = try #require(estimator.estimate)
            if round == 9 { #expect(estimator.history.rounds.count == 10, "no step yet: every round kept") }
            if round == 10 {
                #expect(estimator.history.rounds.count == 1, "the step's round starts the model over")
                #expect(estimator.history.samples.count == 16)
            }
            let error = estimate.offset - offset(estimate.anchor)
            #expect(error.magnitude <= UInt64(estimate.uncertainty), "round \(round): error \(error) ns, uncertainty \(estimate.uncertainty) ns")
        }
    }

    @Test func theWindowKeepsTheNewestSamples() {
        var estimator = ClockEstimator(configuration: .init(sampleWindow: 5))
        for index in 0..<12 {
            estimator.record(.exchange(at: Int64(index) * second, up: 20 * millisecond, down: 20 * millisecond) { _ in
                bootEpoch
            })
        }
        #expect(estimator.history.samples.map(\.t1) == (7..<12).map { Int64($0) * second })
    }

    @Test func aRestoredHistoryGivesTheSameEstimate() {
        var original = ClockEstimator()
        for index in 0..<20 {
            original.record(.exchange(at: Int64(index) * minute, up: 20 * millisecond, down: 30 * millisecond) {
                bootEpoch + $0 / 50_000
            })
            if index % 2 == 1 { original.completeRound() }
        }
        let restored = ClockEstimator(history: original.history)
        #expect(restored.estimate == original.estimate)
        #expect(restored.drift == original.drift)
    }
}
