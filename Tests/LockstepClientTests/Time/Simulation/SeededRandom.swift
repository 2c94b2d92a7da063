import Foundation

/// SplitMix64: a small, fast generator whose whole stream follows from its seed, so a failing
/// simulation replays exactly.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A draw from N(mean, deviation²), by the Box–Muller transform.
    mutating func normal(mean: Double, deviation: Double) -> Double {
        let radius = (-2 * log(Double.random(in: .leastNonzeroMagnitude..<1, using: &self))).squareRoot()
        return mean + deviation * radius * cos(2 * .pi * Double.random(in: 0..<1, using: &self))
    }

    /// A draw from the exponential distribution with this mean.
    mutating func exponential(mean: Double) -> Double {
        -mean * log(Double.random(in: .leastNonzeroMagnitude..<1, using: &self))
    }
}
