import Testing

/// How the simulated network delays each leg of an exchange (figures in milliseconds).
enum DelayModel: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Symmetric jitter: N(40, 20) each way, clamped at zero.
    case jitter
    /// Realistic symmetric jitter: N(40, 10) each way (the benchmark's `gaussian-10` link).
    case mildJitter
    /// Symmetric queueing: 20 + Exp(mean 20) each way.
    case queueing
    /// Asymmetric queueing (a bloated downlink buffer): 20 + Exp(5) up, 20 + Exp(40) down.
    case bufferbloat
    /// A local network: 0.2 ms + Exp(0.05) each way.
    case lan
    /// A route 20 ms longer down than up, with a little queueing each way: 20 + Exp(5) up,
    /// 40 + Exp(5) down. No exchange can see the difference; it costs half of it, 10 ms.
    case asymmetricRoute
    /// Light queueing, 20 + Exp(5) each way, and now and then a burst of bufferbloat: for 10 to
    /// 40 exchanges the downlink holds every packet another 100 to 400 ms (see ``QueueBursts``).
    case bufferbloatBursts

    /// The three models `notes/clock.md` compares filters under.
    static let comparedInNotes: [DelayModel] = [.jitter, .queueing, .bufferbloat]

    /// The symmetric links, whose two directions delay alike: where the uncertainty holds.
    static let symmetric: [DelayModel] = [.jitter, .mildJitter, .queueing, .bufferbloat, .bufferbloatBursts, .lan]

    /// How much a route's fixed asymmetry moves every estimate (half the difference of the two
    /// directions' floors), in nanoseconds: 0 but for ``asymmetricRoute``.
    var invisibleBias: Int64 { self == .asymmetricRoute ? 10_000_000 : 0 }

    /// One exchange's delays in nanoseconds; `bursts` carries the bufferbloat bursts from one
    /// exchange to the next.
    func draw(using random: inout SeededRandom, bursts: inout QueueBursts) -> (up: Int64, down: Int64) {
        let (up, down): (Double, Double)
        switch self {
        case .jitter:
            up = max(random.normal(mean: 40, deviation: 20), 0)
            down = max(random.normal(mean: 40, deviation: 20), 0)
        case .mildJitter:
            up = max(random.normal(mean: 40, deviation: 10), 0)
            down = max(random.normal(mean: 40, deviation: 10), 0)
        case .queueing:
            up = 20 + random.exponential(mean: 20)
            down = 20 + random.exponential(mean: 20)
        case .bufferbloat:
            up = 20 + random.exponential(mean: 5)
            down = 20 + random.exponential(mean: 40)
        case .lan:
            up = 0.2 + random.exponential(mean: 0.05)
            down = 0.2 + random.exponential(mean: 0.05)
        case .asymmetricRoute:
            up = 20 + random.exponential(mean: 5)
            down = 40 + random.exponential(mean: 5)
        case .bufferbloatBursts:
            up = 20 + random.exponential(mean: 5)
            down = 20 + random.exponential(mean: 5) + bursts.extraDelay(using: &random)
        }
        return (Int64(up * 1e6), Int64(down * 1e6))
    }

    var testDescription: String { rawValue }
}
