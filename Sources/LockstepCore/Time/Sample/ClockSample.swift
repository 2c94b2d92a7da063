/// One NTP-style exchange with the server: four timestamps in nanoseconds.
///
/// The client stamps `t1` on its monotonic clock when it sends, the server stamps `t2` when the
/// request arrives and `t3` as it sends the reply (both in nanoseconds since the Unix epoch), and
/// the client stamps `t4` on its monotonic clock when the reply arrives.
///
/// With one-way delays u (up) and d (down), both at least zero, the server's clock minus the
/// client's clock (the *offset*) satisfies
///
///     t3 − t4  ≤  offset  ≤  t2 − t1
///
/// because `t2 = t1 + offset + u` and `t4 = t3 − offset + d`. That interval is the whole
/// content of a sample: its midpoint is the classic offset θ = ((t2 − t1) + (t3 − t4)) / 2 and
/// its half-width is half the round trip δ = (t4 − t1) − (t3 − t2). Working with the integer
/// ends keeps the epoch-scale arithmetic exact; nothing is rounded until a midpoint is taken.
public struct ClockSample: Sendable, Hashable, Codable {
    /// Client send, on the client's monotonic clock.
    public var t1: Int64
    /// Server receive, nanoseconds since the Unix epoch on the server's clock.
    public var t2: Int64
    /// Server send, nanoseconds since the Unix epoch on the server's clock.
    public var t3: Int64
    /// Client receive, on the client's monotonic clock.
    public var t4: Int64
    /// How coarse the server's stamps are: the true server time at receipt lies in
    /// `t2 ..< t2 + serverResolution` (likewise for `t3`). Zero for exact nanosecond stamps;
    /// one second for a time read from an HTTP `Date` header, which truncates to the second.
    public var serverResolution: Int64
    /// Whether the exchange may have had to open its connection first. Then its request left
    /// only after a handshake's round trip, all of it counted in the up leg: the sample still
    /// bounds the offset (its interval holds) and its down leg is the link's, but its up leg
    /// and so its θ are not, and the estimate does not average or learn from them.
    public var opensConnection: Bool

    public init(t1: Int64, t2: Int64, t3: Int64, t4: Int64, serverResolution: Int64 = 0, opensConnection: Bool = false) {
        self.t1 = t1
        self.t2 = t2
        self.t3 = t3
        self.t4 = t4
        self.serverResolution = serverResolution
        self.opensConnection = opensConnection
    }

    /// Round trip δ: time on the wire, excluding the server's own processing time.
    public var roundTrip: Int64 { (t4 - t1) - (t3 - t2) }

    /// The offsets (server minus client) that this exchange allows; the true one is inside.
    public var offsetBounds: ClosedRange<Int64> { (t3 - t4)...(t2 + serverResolution - t1) }

    /// The offset θ, the midpoint of ``offsetBounds`` (rounded down to the nanosecond).
    public var offset: Int64 { offsetBounds.midpoint }

    /// Half the width of ``offsetBounds``: δ/2, plus half the server's stamp resolution.
    /// The true offset is never farther than this from ``offset``.
    public var errorBound: Int64 { offsetBounds.upperBound - offset }

    /// The local instant the sample speaks for: halfway between send and receive.
    public var localMidpoint: Int64 { t1 + (t4 - t1) / 2 }

    /// A sample is usable when time ran forwards on both sides and the server did not claim
    /// to spend longer on the request than the client waited for it.
    public var isPlausible: Bool { t4 >= t1 && t3 >= t2 && roundTrip >= 0 && serverResolution >= 0 }
}

extension ClosedRange<Int64> {
    /// The midpoint, rounded down, computed without overflowing at epoch scale.
    var midpoint: Int64 { lowerBound + (upperBound - lowerBound) / 2 }
}

extension ClockSample {
    private enum CodingKeys: String, CodingKey {
        case t1, t2, t3, t4, serverResolution, opensConnection
    }

    /// Reads calibrations saved before ``opensConnection`` existed as well.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            t1: try container.decode(Int64.self, forKey: .t1),
            t2: try container.decode(Int64.self, forKey: .t2),
            t3: try container.decode(Int64.self, forKey: .t3),
            t4: try container.decode(Int64.self, forKey: .t4),
            serverResolution: try container.decode(Int64.self, forKey: .serverResolution),
            opensConnection: try container.decodeIfPresent(Bool.self, forKey: .opensConnection) ?? false)
    }
}
