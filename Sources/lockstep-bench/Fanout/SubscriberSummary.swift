/// What subscriptions received, added up: one subscriber process prints its own as one JSON
/// line when it is done, and the benchmark adds the processes' together.
struct SubscriberSummary: Codable, Sendable {
    var subscriptions = 0
    /// Deliveries that should have arrived: the changes written times the subscriptions.
    var expected = 0
    /// Distinct changes received, over every subscription.
    var deliveries = 0
    /// Changes received again by a subscription that already had them.
    var duplicates = 0
    /// Subscriptions that received every change.
    var complete = 0
    /// Subscriptions whose connection ended before the report: the benchmark never closes one
    /// itself until then, so the server (or the network) ended each of these.
    var dropped = 0
    /// Why the dropped connections ended, and how many ended so.
    var endings: [String: Int] = [:]
    var latencies = LatencyHistogram()
    /// Unix nanoseconds of the first and the last delivery.
    var firstDelivery: Int64?
    var lastDelivery: Int64?
    /// CPU seconds the subscriber processes used, all of their lives.
    var processCPUSeconds = 0.0

    var missing: Int { max(0, expected - deliveries) }

    mutating func add(_ other: SubscriberSummary) {
        subscriptions += other.subscriptions
        expected += other.expected
        deliveries += other.deliveries
        duplicates += other.duplicates
        complete += other.complete
        dropped += other.dropped
        endings.merge(other.endings, uniquingKeysWith: +)
        latencies.add(other.latencies)
        firstDelivery = [firstDelivery, other.firstDelivery].compactMap { $0 }.min()
        lastDelivery = [lastDelivery, other.lastDelivery].compactMap { $0 }.max()
        processCPUSeconds += other.processCPUSeconds
    }

    static func total(_ summaries: [SubscriberSummary]) -> SubscriberSummary {
        summaries.reduce(into: SubscriberSummary()) { $0.add($1) }
    }
}
