/// How webhooks are delivered, each a `serve` option (see `lockstep serve --help`).
public struct WebhookLimits: Sendable, Equatable {
    /// Whether endpoints may be on loopback, private, link-local or other non-public
    /// addresses (`--webhooks-allow-private`). Off: a server must not become a way into its own
    /// network. Checked against the address each request connects to, not only the name.
    public var allowPrivateAddresses = false
    /// How long a request may take, from connecting to the response's end, before it counts
    /// as failed and is retried.
    public var timeoutSeconds = 10.0
    /// The wait before the first retry; each later one waits twice as long, up to
    /// ``retryMaximumSeconds``, each less a random part of up to half (jitter), so that the
    /// retries of many deliveries do not come at once.
    public var retryBaseSeconds = 5.0
    /// The longest wait between two attempts.
    public var retryMaximumSeconds = 3600.0
    /// How long a delivery is retried after its first attempt; then its endpoint is disabled,
    /// with the last failure as the reason. Three days.
    public var retryPeriodSeconds = 3.0 * 24 * 3600
    /// The most events one request carries (a backlog is sent in batches, in order).
    public var maximumBatchEvents = 100
    /// The most bytes of events one request carries (one larger event goes alone).
    public var maximumBatchBytes = 256 * 1024
    /// How much of a response's body is kept with the delivery, for people to read.
    public var responseBytesKept = 1024
    /// Requests in flight at once from one node, to all endpoints together.
    public var concurrentRequests = 64
    /// How long a node holds an endpoint it delivers to before another may take it over (it
    /// renews the lease while it delivers): how long a node killed mid-delivery delays its
    /// endpoints. At least three times ``timeoutSeconds``.
    public var leaseSeconds = 60.0
    /// How often each node looks for endpoints with something to send that no node holds
    /// (retries due, events committed on other nodes); a commit on this node wakes it at once.
    public var pollSeconds = 1.0
    /// How long events and finished deliveries are kept once every endpoint has had them, for
    /// `deliveries` and `replay`.
    public var retentionSeconds = 3.0 * 24 * 3600
    /// The most endpoints one app may have.
    public var maximumEndpointsPerApp = 50

    public init() {}

    /// A length of time for people: `3 days`, `2 h`, `90 s`, `0.5 s`.
    static func describe(seconds: Double) -> String {
        func trimmed(_ value: Double) -> String {
            value == value.rounded() ? String(Int64(value)) : String((value * 1000).rounded() / 1000)
        }
        if seconds >= 86_400, seconds.truncatingRemainder(dividingBy: 86_400) == 0 {
            return seconds == 86_400 ? "1 day" : "\(trimmed(seconds / 86_400)) days"
        }
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(trimmed(seconds / 3600)) h" }
        return "\(trimmed(seconds)) s"
    }

    /// What is wrong with these limits, if anything (a sentence for `serve`'s refusal).
    public var problem: String? {
        if timeoutSeconds <= 0 { return "the webhook timeout must be more than 0 seconds" }
        if retryBaseSeconds <= 0 || retryMaximumSeconds < retryBaseSeconds {
            return "webhook retries must wait more than 0 seconds, and the longest wait no less than the first"
        }
        if retryPeriodSeconds < 0 { return "the webhook retry period cannot be negative" }
        if maximumBatchEvents < 1 || maximumBatchBytes < 1 { return "a webhook request must carry at least one event" }
        if responseBytesKept < 0 { return "the webhook response bytes kept cannot be negative" }
        if concurrentRequests < 1 { return "at least one webhook request must be allowed in flight" }
        if leaseSeconds < 3 * timeoutSeconds { return "the webhook lease must be at least three times the webhook timeout" }
        if pollSeconds <= 0 { return "the webhook poll interval must be more than 0 seconds" }
        if retentionSeconds < 0 { return "the webhook retention cannot be negative" }
        if maximumEndpointsPerApp < 0 { return "the most webhook endpoints per app cannot be negative" }
        return nil
    }
}
