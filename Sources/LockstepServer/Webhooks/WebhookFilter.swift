/// Which events an endpoint wants: some types, and optionally only those of some buckets.
public struct WebhookFilter: Sendable, Hashable {
    /// At least one type.
    public var types: Set<WebhookEventType>
    /// Buckets whose events it wants (as clients name them, see ``BucketPattern``); none: every
    /// bucket. Events of no bucket (``WebhookEventType/spaceMember``, ``WebhookEventType/blob``)
    /// are not filtered by bucket.
    public var buckets: [BucketPattern]

    public init(types: Set<WebhookEventType>, buckets: [BucketPattern] = []) {
        self.types = types
        self.buckets = buckets
    }

    /// Whether an event of `type`, about `bucket` when it concerns one, is wanted.
    public func wants(_ type: WebhookEventType, bucket: String?) -> Bool {
        guard types.contains(type) else { return false }
        guard let bucket, !buckets.isEmpty else { return true }
        return buckets.contains { $0.matches(bucket) }
    }

    /// The types as stored and shown: names in order.
    package var typeNames: [String] { types.sorted().map(\.rawValue) }
}
