/// How fast the offset between the server's clock and the local clock changes.
///
/// Two crystals never tick at quite the same rate: at 20 ppm the offset moves 72 ms an hour.
/// The rate is the server's rate over the local rate, minus one, so 20e-6 means the server
/// gains 20 µs per local second. Two bounds go with it, as with the offset (see
/// ``ClockEstimate``):
///
/// - `rateBound` bounds the error of `rate` whatever happened on the network: it is what makes
///   an error bound grow with the time since the last exchange;
/// - `rateUncertainty` is what the rounds' scatter says, at the same confidence as
///   ``ClockEstimate/uncertainty``; never more than `rateBound`, and equal to it until the
///   rounds measure a rate.
public struct ClockDrift: Sendable, Hashable, Codable {
    /// The estimated rate (dimensionless; 1e-6 is one part per million).
    public var rate: Double
    /// The true rate lies within `rate ± rateBound`.
    public var rateBound: Double
    /// The true rate lies within `rate ± rateUncertainty` with high confidence (see
    /// `DriftEstimator`): how fast ``ClockEstimate/uncertainty`` grows away from the anchor.
    public var rateUncertainty: Double

    /// A drift whose statistical uncertainty is its bound unless told otherwise.
    public init(rate: Double, rateBound: Double, rateUncertainty: Double? = nil) {
        self.rate = rate
        self.rateBound = rateBound
        self.rateUncertainty = min(rateUncertainty ?? rateBound, rateBound)
    }

    /// Nothing measured yet: no correction, and only the tolerance the caller allows.
    public static func unmeasured(tolerance: Double) -> ClockDrift {
        ClockDrift(rate: 0, rateBound: tolerance)
    }

    /// How much the offset moves over `nanoseconds` of local time.
    func offsetChange(over nanoseconds: Int64) -> Int64 {
        Int64(saturating: (rate * Double(nanoseconds)).rounded())
    }

    /// How much an error bound grows over `nanoseconds` (either direction) of local time:
    /// rounded up, plus a nanosecond or two for the rounding of both clocks' integer stamps.
    func boundGrowth(over nanoseconds: Int64) -> Int64 {
        Int64(saturating: (rateBound * Double(nanoseconds.magnitude)).rounded(.up)) + Self.roundingAllowance
    }

    /// How much an uncertainty grows over `nanoseconds` (either direction) of local time.
    func uncertaintyGrowth(over nanoseconds: Int64) -> Int64 {
        Int64(saturating: (rateUncertainty * Double(nanoseconds.magnitude)).rounded(.up)) + Self.roundingAllowance
    }

    /// Both ends of a projection round to whole nanoseconds.
    static let roundingAllowance: Int64 = 2
}

extension ClockDrift {
    private enum CodingKeys: String, CodingKey {
        case rate, rateBound, rateUncertainty
    }

    /// Reads drifts saved before ``rateUncertainty`` existed as well (it is then the bound).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            rate: try container.decode(Double.self, forKey: .rate),
            rateBound: try container.decode(Double.self, forKey: .rateBound),
            rateUncertainty: try container.decodeIfPresent(Double.self, forKey: .rateUncertainty))
    }
}
