/// Who may read the server's metrics, and where.
///
/// By default `GET /metrics` is open on the main listener, like `/health`: it holds counts
/// and gauges (requests by route and status, changes applied, open sockets), no data and no
/// secrets, but it does tell an outsider how busy the server is. Restrict it with a bearer
/// token (`--metrics-token`), move it to a listener of its own, say on an internal address
/// (`--metrics-listen 10.0.0.5:9090`), or both.
public struct MetricsAccess: Sendable, Equatable {
    /// When set, `GET /metrics` answers only requests with `Authorization: Bearer <token>`.
    public var bearerToken: String?
    /// Whether the main listener serves `/metrics`; `false` when a listener of its own does.
    public var onMainListener: Bool

    public init(bearerToken: String? = nil, onMainListener: Bool = true) {
        self.bearerToken = bearerToken
        self.onMainListener = onMainListener
    }
}
