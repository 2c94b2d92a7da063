/// What the client knows about the server's clock: the offset at one local instant, how it
/// drifts from there, and two bars on the error of both.
///
/// Local instants are nanoseconds on the client's monotonic clock (one that never jumps and
/// counts through sleep); server times are nanoseconds since the Unix epoch. The estimate is a
/// line through the anchor, server = local + offset + rate × (local − anchor).
///
/// - ``errorBound`` is a guarantee: it holds whatever the network did, even on a route whose
///   two directions differ by a fixed delay (which no exchange can see), and grows by
///   `rateBound` per nanosecond away from the anchor in either direction.
/// - ``uncertainty`` is what the exchanges' statistics say: on a link whose two directions
///   delay alike (the same mean jitter, or the same floor under queues), the truth lies within
///   it in at least 99.5 % of estimates (`ServerClockLawTests`). It shrinks as exchanges
///   accumulate, where the bound stops shrinking at the fastest trips, and grows by
///   `rateUncertainty` per nanosecond away from the anchor. Never more than the bound.
public struct ClockEstimate: Sendable, Hashable, Codable {
    /// The local instant at which ``offset``, ``errorBound`` and ``uncertainty`` hold.
    public var anchor: Int64
    /// Server time minus local time at ``anchor``.
    public var offset: Int64
    /// The largest possible error of ``offset`` at ``anchor``.
    public var errorBound: Int64
    /// The error of ``offset`` at ``anchor`` the exchanges' statistics allow (see above).
    public var uncertainty: Int64
    /// How the offset moves away from the anchor.
    public var drift: ClockDrift

    /// An estimate; without an `uncertainty`, the bound is all that is known.
    public init(anchor: Int64, offset: Int64, errorBound: Int64, uncertainty: Int64? = nil, drift: ClockDrift) {
        self.anchor = anchor
        self.offset = offset
        self.errorBound = errorBound
        self.uncertainty = min(uncertainty ?? errorBound, errorBound)
        self.drift = drift
    }

    /// Server time minus local time at `local`.
    public func offset(at local: Int64) -> Int64 {
        offset + drift.offsetChange(over: local &- anchor)
    }

    /// The largest possible error of ``offset(at:)``.
    public func errorBound(at local: Int64) -> Int64 {
        errorBound + drift.boundGrowth(over: local &- anchor)
    }

    /// The error of ``offset(at:)`` the exchanges' statistics allow: ``uncertainty``, grown by
    /// the drift's `rateUncertainty`, and never more than ``errorBound(at:)``.
    public func uncertainty(at local: Int64) -> Int64 {
        min(uncertainty + drift.uncertaintyGrowth(over: local &- anchor), errorBound(at: local))
    }

    /// The server's time at the local instant `local`, with its bound and its uncertainty.
    public func serverTime(at local: Int64) -> ServerTime {
        ServerTime(
            nanosecondsSinceEpoch: local &+ offset(at: local),
            errorBound: .nanoseconds(errorBound(at: local)),
            uncertainty: .nanoseconds(uncertainty(at: local))
        )
    }

    /// The local instant at which the server's clock reads `serverTime`: the inverse of
    /// ``serverTime(at:)``, solving server = local + offset + rate × (local − anchor).
    public func localInstant(atServerTime serverTime: Int64) -> Int64 {
        // Exact integer difference first, so epoch-scale values lose nothing to `Double`;
        // saturate for far-off sentinels such as `Int64.max` ("never").
        let (serverSinceAnchor, overflow) = serverTime.subtractingReportingOverflow(anchor + offset)
        guard !overflow else { return serverTime < 0 ? .min : .max }
        let localSinceAnchor = Int64(saturating: (Double(serverSinceAnchor) / (1 + drift.rate)).rounded())
        let (local, beyond) = anchor.addingReportingOverflow(localSinceAnchor)
        return beyond ? (localSinceAnchor < 0 ? .min : .max) : local
    }
}

extension ClockEstimate {
    private enum CodingKeys: String, CodingKey {
        case anchor, offset, errorBound, uncertainty, drift
    }

    /// Reads estimates saved before ``uncertainty`` existed as well (it is then the bound).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            anchor: try container.decode(Int64.self, forKey: .anchor),
            offset: try container.decode(Int64.self, forKey: .offset),
            errorBound: try container.decode(Int64.self, forKey: .errorBound),
            uncertainty: try container.decodeIfPresent(Int64.self, forKey: .uncertainty),
            drift: try container.decode(ClockDrift.self, forKey: .drift))
    }
}
