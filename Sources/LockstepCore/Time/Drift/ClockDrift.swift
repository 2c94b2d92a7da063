/// How fast the offset between the server's clock and the local clock changes.
///
/// Two crystals never tick at quite the same rate: at 20 ppm the offset moves 72 ms an hour.
/// The rate is the server's rate over the local rate, minus one, so 20e-6 means the server
/// gains 20 µs per local second. `rateBound` bounds the error of `rate`; it is what makes an
/// error bar grow with the time since the last exchange.
public struct ClockDrift: Sendable, Hashable, Codable {
    /// The estimated rate (dimensionless; 1e-6 is one part per million).
    public var rate: Double
    /// The true rate lies within `rate ± rateBound`.
    public var rateBound: Double

    public init(rate: Double, rateBound: Double) {
        self.rate = rate
        self.rateBound = rateBound
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

    /// Both ends of a projection round to whole nanoseconds.
    static let roundingAllowance: Int64 = 2
}
