import LockstepCore
import PropertyBased
import Testing

@Suite struct ClockDriftTests {
    /// Rounds of four exchanges every `interval`, 20 ms floors plus a little jitter each way.
    private func estimator(rate: Double, rounds: Int, interval: Int64) -> ClockEstimator {
        var estimator = ClockEstimator()
        var random = SystemRandomNumberGenerator()
        let offset = { (local: Int64) in bootEpoch + Int64(rate * Double(local)) }
        for round in 0..<rounds {
            for exchange in 0..<4 {
                let up = 20 * millisecond + Int64.random(in: 0...3 * millisecond, using: &random)
                let down = 20 * millisecond + Int64.random(in: 0...3 * millisecond, using: &random)
                let t1 = Int64(round) * interval + Int64(exchange) * 50 * millisecond
                estimator.record(.exchange(at: t1, up: up, down: down, offset: offset))
            }
            estimator.completeRound()
        }
        return estimator
    }

    @Test func anHourOfRoundsMeasuresTheRateWithinAPartPerMillion() {
        let rate = 20e-6
        let drift = estimator(rate: rate, rounds: 13, interval: 5 * minute).drift
        #expect(abs(drift.rate - rate) < 1e-6)
        #expect(abs(drift.rate - rate) <= drift.rateBound)
        #expect(drift.rateBound < 20e-6)
    }

    @Test func aShortSpanMeasuresTheRateLooselyAndSaysSo() {
        let drift = estimator(rate: 20e-6, rounds: 3, interval: 5 * minute).drift
        // Ten minutes of ±21 ms bounds narrow the rate to about 20 ± 70 ppm, within the
        // 100 ppm tolerance. Rounds of four exchanges are too few for statistics, so their bars
        // are their bounds: the slope is weighed as that imprecise, and its uncertainty is wide.
        #expect(drift.rateBound < 100e-6)
        #expect(abs(drift.rate - 20e-6) <= drift.rateBound)
        #expect(abs(drift.rate - 20e-6) <= drift.rateUncertainty)
        #expect(drift.rateUncertainty > 30e-6)
    }

    /// Rounds of 16 exchanges a minute apart over a quiet link (20 ms plus up to 2 ms each way):
    /// whatever the rate within ±50 ppm, its uncertainty holds it, and narrows as the rounds go on.
    @Test func theRatesUncertaintyHoldsItAndNarrowsWithTheRounds() async {
        await propertyCheck(count: 40, input: Gen.double(in: -50e-6...50e-6), Gen.uint64()) { rate, seed in
            var estimator = ClockEstimator()
            var random = Xorshift(seed: seed)
            let offset = { (local: Int64) in bootEpoch + Int64(rate * Double(local)) }
            var uncertainties: [Double] = []
            for round in 0..<30 {
                for exchange in 0..<16 {
                    let up = 20 * millisecond + Int64.random(in: 0...2 * millisecond, using: &random)
                    let down = 20 * millisecond + Int64.random(in: 0...2 * millisecond, using: &random)
                    estimator.record(.exchange(at: Int64(round) * minute + Int64(exchange) * 50 * millisecond, up: up, down: down, offset: offset))
                }
                estimator.completeRound()
                let drift = estimator.drift
                #expect(abs(drift.rate - rate) <= drift.rateUncertainty, "round \(round): \(drift)")
                uncertainties.append(drift.rateUncertainty)
            }
            #expect(uncertainties[29] < uncertainties[3] / 4)
            #expect(uncertainties[29] < 3e-6)
        }
    }

    @Test func noRoundsMeansOnlyTheTolerance() {
        #expect(ClockEstimator().drift == ClockDrift(rate: 0, rateBound: 100e-6))
    }

    @Test func aRateBeyondTheToleranceResetsTheRounds() {
        // 300 ppm against a 100 ppm tolerance: the rounds cannot all be right, so the old ones go.
        let estimator = estimator(rate: 300e-6, rounds: 6, interval: 5 * minute)
        #expect(estimator.history.rounds.count < 6)
        #expect(estimator.drift.rateBound <= 100e-6)
    }
}
