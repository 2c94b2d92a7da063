import Foundation

/// How long a network holds data in one direction, drawn afresh for each chunk: the two delay
/// models of `notes/clock.md`, and a fixed delay for tests.
enum OneWayDelay: Sendable, Hashable {
    /// Always the same delay.
    case fixed(milliseconds: Double)
    /// Jitter: N(mean, deviation²), clamped at zero.
    case normal(meanMilliseconds: Double, deviationMilliseconds: Double)
    /// Queueing: a floor (the propagation delay) plus an exponential wait in queues.
    case queueing(floorMilliseconds: Double, meanWaitMilliseconds: Double)

    /// One draw, in nanoseconds.
    func draw(using random: inout some RandomNumberGenerator) -> Int64 {
        let milliseconds: Double
        switch self {
        case .fixed(let delay):
            milliseconds = delay
        case .normal(let mean, let deviation):
            // Box–Muller: two uniform draws make one normal one.
            let radius = (-2 * log(Double.random(in: .leastNonzeroMagnitude..<1, using: &random))).squareRoot()
            milliseconds = max(mean + deviation * radius * cos(2 * .pi * Double.random(in: 0..<1, using: &random)), 0)
        case .queueing(let floor, let meanWait):
            milliseconds = floor - meanWait * log(Double.random(in: .leastNonzeroMagnitude..<1, using: &random))
        }
        return Int64((milliseconds * 1e6).rounded())
    }
}

extension OneWayDelay: CustomStringConvertible {
    var description: String {
        switch self {
        case .fixed(let delay): "\(delay.compact) ms"
        case .normal(let mean, let deviation): "N(\(mean.compact), \(deviation.compact)) ms"
        case .queueing(let floor, let meanWait): "\(floor.compact) + Exp(\(meanWait.compact)) ms"
        }
    }
}

/// A network path: what each direction does to the data crossing it.
struct LinkModel: Sendable {
    var name: String
    /// Client to server.
    var up: OneWayDelay
    /// Server to client.
    var down: OneWayDelay
    /// For a stress link, where no estimator with 8 exchanges meets the targets: the best any
    /// can do (p99 |error| and the p1–p99 spread of 100 clients, nanoseconds), set beside the
    /// figures instead of the targets.
    var floor: (p99: Double, spread: Double)?

    /// Jitter around a 40 ms mean each way, 10 ms deviation (a round trip of 80 ± 14 ms), as
    /// on a busy Wi-Fi link: the realistic jitter case the targets are set for.
    static let gaussian = LinkModel(
        name: "gaussian-10",
        up: .normal(meanMilliseconds: 40, deviationMilliseconds: 10),
        down: .normal(meanMilliseconds: 40, deviationMilliseconds: 10))

    /// The same with twice the deviation, half the mean: a stress case whose floor lies above
    /// the targets. Each exchange's error (up − down)/2 is then N(0, 14.1 ms) whatever its
    /// round trip, so nothing beats the mean of 8: σ 5 ms, p99 |error| 12.9 ms, and 100 such
    /// clients spread 23 ms from p1 to p99.
    static let gaussianStress = LinkModel(
        name: "gaussian-20",
        up: .normal(meanMilliseconds: 40, deviationMilliseconds: 20),
        down: .normal(meanMilliseconds: 40, deviationMilliseconds: 20),
        floor: (p99: 12.9e6, spread: 23.3e6))

    /// A bloated downlink buffer, as on mobile networks: short queues up, long queues down.
    static let bufferbloat = LinkModel(
        name: "bufferbloat",
        up: .queueing(floorMilliseconds: 20, meanWaitMilliseconds: 5),
        down: .queueing(floorMilliseconds: 20, meanWaitMilliseconds: 40))

    /// No delay either way: the relay's and this machine's own share of any figure.
    static let zeroDelay = LinkModel(name: "zero-delay", up: .fixed(milliseconds: 0), down: .fixed(milliseconds: 0))

    /// The links the benchmark measures by default, in order.
    static let all = [gaussian, gaussianStress, bufferbloat]

    /// Every link the benchmark knows, by name.
    static func named(_ name: String) -> LinkModel? {
        (all + [zeroDelay]).first { $0.name == name }
    }
}

extension Double {
    /// `40` for 40.0, `0.5` for 0.5: the shortest decimal form, for labels.
    fileprivate var compact: String {
        self == rounded() ? String(Int(self)) : String(self)
    }
}
