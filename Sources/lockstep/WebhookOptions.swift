import ArgumentParser
import Foundation
import LockstepServer

/// How `serve` delivers webhooks, each option also read from an environment variable
/// (`--webhook-timeout-seconds` from `LOCKSTEP_WEBHOOK_TIMEOUT_SECONDS`, and so on).
struct WebhookOptions: ParsableArguments {
    @Flag(
        name: .customLong("webhooks-allow-private"),
        help: "Deliver webhooks to loopback, private and link-local addresses too (env LOCKSTEP_WEBHOOKS_ALLOW_PRIVATE=1). Off: a server must not be a way into its own network.")
    var allowPrivate = false
    @Option(name: .customLong("webhook-timeout-seconds"), help: "How long a webhook request may take before it is retried (default 10).")
    var timeoutSeconds: Double?
    @Option(name: .customLong("webhook-retry-base-seconds"), help: "The wait before a failed webhook delivery's first retry; each later one doubles (default 5).")
    var retryBaseSeconds: Double?
    @Option(name: .customLong("webhook-retry-max-seconds"), help: "The longest wait between two attempts of a webhook delivery (default 3600).")
    var retryMaximumSeconds: Double?
    @Option(name: .customLong("webhook-retry-period-seconds"), help: "How long a webhook delivery is retried before its endpoint is disabled (default 259200, three days).")
    var retryPeriodSeconds: Double?
    @Option(name: .customLong("webhook-batch-events"), help: "The most events one webhook request carries (default 100).")
    var maximumBatchEvents: Int?
    @Option(name: .customLong("webhook-batch-bytes"), help: "The most bytes of events one webhook request carries (default 262144).")
    var maximumBatchBytes: Int?
    @Option(name: .customLong("webhook-response-bytes"), help: "How much of a webhook response's body is kept (default 1024).")
    var responseBytesKept: Int?
    @Option(name: .customLong("webhook-concurrency"), help: "Webhook requests in flight at once from this node, to all endpoints (default 64).")
    var concurrentRequests: Int?
    @Option(name: .customLong("webhook-lease-seconds"), help: "How long a node holds an endpoint it delivers to before another may take over (default 60; at least 3 × the timeout).")
    var leaseSeconds: Double?
    @Option(name: .customLong("webhook-poll-seconds"), help: "How often a node looks for webhook deliveries due that no node holds (default 1).")
    var pollSeconds: Double?
    @Option(name: .customLong("webhook-retention-seconds"), help: "How long delivered webhook events and finished deliveries are kept, for replays (default 259200).")
    var retentionSeconds: Double?
    @Option(name: .customLong("webhook-max-endpoints"), help: "The most webhook endpoints one app may have; 0: no limit (default 50).")
    var maximumEndpointsPerApp: Int?

    func resolved() throws -> WebhookLimits {
        var limits = WebhookLimits()
        let environment = ProcessInfo.processInfo.environment
        func pick<T: LosslessStringConvertible>(_ option: T?, _ variable: String) throws -> T? {
            if let option { return option }
            guard let text = environment[variable] else { return nil }
            guard let value = T(text) else { throw ValidationError("\(variable)=\(text) is not valid") }
            return value
        }
        if let allowed = try environmentSwitch("LOCKSTEP_WEBHOOKS_ALLOW_PRIVATE") { limits.allowPrivateAddresses = allowed }
        if allowPrivate { limits.allowPrivateAddresses = true }
        if let value = try pick(timeoutSeconds, "LOCKSTEP_WEBHOOK_TIMEOUT_SECONDS") { limits.timeoutSeconds = value }
        if let value = try pick(retryBaseSeconds, "LOCKSTEP_WEBHOOK_RETRY_BASE_SECONDS") { limits.retryBaseSeconds = value }
        if let value = try pick(retryMaximumSeconds, "LOCKSTEP_WEBHOOK_RETRY_MAX_SECONDS") { limits.retryMaximumSeconds = value }
        if let value = try pick(retryPeriodSeconds, "LOCKSTEP_WEBHOOK_RETRY_PERIOD_SECONDS") { limits.retryPeriodSeconds = value }
        if let value = try pick(maximumBatchEvents, "LOCKSTEP_WEBHOOK_BATCH_EVENTS") { limits.maximumBatchEvents = value }
        if let value = try pick(maximumBatchBytes, "LOCKSTEP_WEBHOOK_BATCH_BYTES") { limits.maximumBatchBytes = value }
        if let value = try pick(responseBytesKept, "LOCKSTEP_WEBHOOK_RESPONSE_BYTES") { limits.responseBytesKept = value }
        if let value = try pick(concurrentRequests, "LOCKSTEP_WEBHOOK_CONCURRENCY") { limits.concurrentRequests = value }
        if let value = try pick(leaseSeconds, "LOCKSTEP_WEBHOOK_LEASE_SECONDS") { limits.leaseSeconds = value }
        if let value = try pick(pollSeconds, "LOCKSTEP_WEBHOOK_POLL_SECONDS") { limits.pollSeconds = value }
        if let value = try pick(retentionSeconds, "LOCKSTEP_WEBHOOK_RETENTION_SECONDS") { limits.retentionSeconds = value }
        if let value = try pick(maximumEndpointsPerApp, "LOCKSTEP_WEBHOOK_MAX_ENDPOINTS") { limits.maximumEndpointsPerApp = value }
        if let problem = limits.problem { throw ValidationError(problem) }
        return limits
    }
}
