import LockstepCore
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

    @Test func aShortSpanMeasuresNoRateButNarrowsTheTolerance() {
        let drift = estimator(rate: 20e-6, rounds: 3, interval: 5 * minute).drift
        // Ten minutes of ±21 ms bounds narrow the rate to about 20 ± 70 ppm, within the
        // 100 ppm tolerance, but the slope is not trusted yet: no correction is applied.
        #expect(drift.rate == 0)
        #expect(drift.rateBound < 100e-6)
        #expect(abs(drift.rate - 20e-6) <= drift.rateBound)
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
