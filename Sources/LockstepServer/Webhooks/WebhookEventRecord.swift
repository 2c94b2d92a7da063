/// One event as the store keeps it until every endpoint that wants it has had it.
public struct WebhookEventRecord: Sendable, Equatable {
    public var appID: String
    public var position: WebhookPosition
    public var type: WebhookEventType
    /// The bucket the event concerns, as clients name it (a space's as `__<space>.<bucket>`),
    /// for endpoints' bucket patterns; `nil` for events of no bucket.
    public var bucket: String?
    /// When the event happened (the commit's time for a change), in nanoseconds since the Unix epoch.
    public var createdAt: Int64
    /// The event's `data`, as compact JSON.
    public var payload: String

    public init(appID: String, position: WebhookPosition, type: WebhookEventType, bucket: String?, createdAt: Int64, payload: String) {
        self.appID = appID
        self.position = position
        self.type = type
        self.bucket = bucket
        self.createdAt = createdAt
        self.payload = payload
    }

    /// The event's id, the same in every request that carries it: `evt_` and its position.
    public var id: String { "evt_\(position)" }
}

/// An event that is not a change, to be recorded after the app's latest change (see
/// ``WebhookPosition``).
public struct NewWebhookEvent: Sendable {
    public var type: WebhookEventType
    public var bucket: String?
    public var createdAt: Int64
    public var payload: String

    public init(type: WebhookEventType, bucket: String? = nil, createdAt: Int64, payload: String) {
        self.type = type
        self.bucket = bucket
        self.createdAt = createdAt
        self.payload = payload
    }
}
