import Foundation
@testable import LockstepCore
import PropertyBased
import Testing

/// The per-direction statistics the offset filter chooses its estimate by.
@Suite struct DelayShapeTests {
    private static func exponential(_ scale: Double, _ random: inout Xorshift) -> Double {
        -scale * log(Double.random(in: .leastNonzeroMagnitude..<1, using: &random))
    }

    private static func normal(_ mean: Double, _ deviation: Double, _ random: inout Xorshift) -> Double {
        let radius = (-2 * log(Double.random(in: .leastNonzeroMagnitude..<1, using: &random))).squareRoot()
        return mean + deviation * radius * cos(2 * .pi * Double.random(in: 0..<1, using: &random))
    }

    @Test func theFloorNeverRisesAboveTheFastestTripAndMovesWithTheDelays() async {
        await propertyCheck(input: Gen.double(in: 0...1e8).array(of: 1...32), Gen.double(in: -1e9...1e9)) { delays, shift in
            let shape = DelayShape(delays)
            #expect(shape.floor <= delays.min()!)
            let shifted = DelayShape(delays.map { $0 + shift })
            #expect(abs(shifted.floor - (shape.floor + shift)) <= 1e-3)
            #expect(abs(shifted.queueingEvidence - shape.queueingEvidence) <= 1e-6)
        }
    }

    @Test func theFloorOfExponentialWaitsIsUnbiasedWhereTheFastestTripIsNot() {
        var random = Xorshift(seed: 7)
        var floorError = 0.0, fastestError = 0.0
        let trials = 20_000
        for _ in 0..<trials {
            let delays = (0..<8).map { _ in 20 + Self.exponential(40, &random) }
            floorError += DelayShape(delays).floor - 20
            fastestError += delays.min()! - 20
        }
        // The fastest of 8 trips is λ/8 = 5 above the floor on average.
        #expect(abs(fastestError / Double(trials) - 5) < 0.2)
        #expect(abs(floorError / Double(trials)) < 0.2)
    }

    @Test func queueingAndJitterLeaveDifferentEvidence() {
        var random = Xorshift(seed: 11)
        var queueing: [Double] = [], jitter: [Double] = []
        for _ in 0..<4_000 {
            queueing.append(DelayShape((0..<8).map { _ in 20 + Self.exponential(20, &random) }).queueingEvidence)
            jitter.append(DelayShape((0..<8).map { _ in Self.normal(40, 20, &random) }).queueingEvidence)
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        #expect(median(queueing) > 0.25)
        #expect(abs(median(jitter)) < 0.1)
        // The filter's ramp, on both directions' evidence summed, starts where jitter rarely
        // reaches and queueing mostly does (the filter adds evidence from the offsets' coupling
        // to round trips, which catches one-sided queueing).
        let pairs = { (values: [Double]) in stride(from: 0, to: values.count, by: 2).map { values[$0] + values[$0 + 1] } }
        #expect(Double(pairs(jitter).filter { $0 > OffsetFilter.jitterEvidence }.count) / 2_000 < 0.1)
        #expect(Double(pairs(queueing).filter { $0 < OffsetFilter.jitterEvidence }.count) / 2_000 < 0.35)
    }

    @Test func equalDelaysCarryNoEvidence() {
        #expect(DelayShape([5, 5, 5, 5]).queueingEvidence == 0)
        #expect(DelayShape([5, 5, 5, 5]).floor == 5)
    }
}

/// A small seeded generator, so that the statistical tests above are repeatable.
struct Xorshift: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
