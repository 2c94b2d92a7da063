import Metrics
public import Prometheus
import Synchronization

/// The server's metrics, exported in Prometheus' text format at `GET /metrics`.
///
/// swift-metrics has one factory per process; the first server to start installs Prometheus'
/// and every later one (tests start several) reports into the same registry.
public enum LockstepMetrics {
    private static let installed = Mutex<PrometheusCollectorRegistry?>(nil)

    /// The registry, installing it as the process's metrics backend the first time.
    public static var registry: PrometheusCollectorRegistry {
        installed.withLock { registry in
            if let registry { return registry }
            let created = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: created))
            registry = created
            return created
        }
    }

    static let changesApplied = Counter(label: "lockstep_changes_applied_total")
    static let changesRejected = Counter(label: "lockstep_changes_rejected_total")
    /// Changes merged member by member because their base version was no longer retained.
    static let changesMergedWithoutBase = Counter(label: "lockstep_changes_merged_without_base_total")
    /// How many changes each group commit (one transaction, one flush) carried.
    static let commitGroupSize = Recorder(label: "lockstep_commit_group_size")
    /// Group commits whose transaction failed as a whole, so that each change was committed
    /// again alone: a store fault to look into (each failure is also logged with its change).
    static let commitGroupsRetriedAlone = Counter(label: "lockstep_commit_groups_retried_alone_total")
    /// Release windows and keys answered on the event loop from what was computed (``ReleaseFastPath``).
    static let releasesAnsweredAtHand = Counter(label: "lockstep_releases_answered_at_hand_total")
    static let socketConnections = Gauge(label: "lockstep_socket_connections")
    static let slowReadersClosed = Counter(label: "lockstep_slow_readers_closed_total")
}
