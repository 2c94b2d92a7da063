/// What the client knows about the server's clock: the offset at one local instant, how it
/// drifts from there, and a bound on the error of both.
///
/// Local instants are nanoseconds on the client's monotonic clock (one that never jumps and
/// counts through sleep); server times are nanoseconds since the Unix epoch. The estimate is a
/// line through the anchor, server = local + offset + rate × (local − anchor), and its error
/// bound grows by `rateBound` per nanosecond away from the anchor in either direction.
public struct ClockEstimate: Sendable, Hashable, Codable {
    /// The local instant at which ``offset`` and ``errorBound`` hold.
    public var anchor: Int64
    /// Server time minus local time at ``anchor``.
    public var offset: Int64
    /// The largest possible error of ``offset`` at ``anchor``.
    public var errorBound: Int64
    /// How the offset moves away from the anchor.
    public var drift: ClockDrift

    public init(anchor: Int64, offset: Int64, errorBound: Int64, drift: ClockDrift) {
        self.anchor = anchor
        self.offset = offset
        self.errorBound = errorBound
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

    /// The server's time at the local instant `local`, with its bound.
    public func serverTime(at local: Int64) -> ServerTime {
        ServerTime(
            nanosecondsSinceEpoch: local &+ offset(at: local),
            errorBound: .nanoseconds(errorBound(at: local))
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
