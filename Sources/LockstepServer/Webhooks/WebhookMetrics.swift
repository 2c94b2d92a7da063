import Metrics

/// What `GET /metrics` says of webhooks: per endpoint, its pending events and the age of the
/// oldest (refreshed every ``refreshSeconds``), the requests that failed and the events
/// delivered; for every request, its duration.
enum WebhookMetrics {
    /// How often each node reads every endpoint's backlog for the gauges.
    static let refreshSeconds = 10.0

    static func pendingEvents(appID: String, endpointID: String) -> Gauge {
        Gauge(label: "lockstep_webhook_pending_events", dimensions: [("app", appID), ("endpoint", endpointID)])
    }

    static func oldestPendingSeconds(appID: String, endpointID: String) -> Gauge {
        Gauge(label: "lockstep_webhook_oldest_pending_seconds", dimensions: [("app", appID), ("endpoint", endpointID)])
    }

    static func failures(appID: String, endpointID: String) -> Counter {
        Counter(label: "lockstep_webhook_failures_total", dimensions: [("app", appID), ("endpoint", endpointID)])
    }

    static func eventsDelivered(appID: String, endpointID: String) -> Counter {
        Counter(label: "lockstep_webhook_events_delivered_total", dimensions: [("app", appID), ("endpoint", endpointID)])
    }

    /// Every request's time, from connecting to the response, in seconds.
    static let requestDuration = Timer(label: "lockstep_webhook_request_duration_seconds", preferredDisplayUnit: .seconds)
}
