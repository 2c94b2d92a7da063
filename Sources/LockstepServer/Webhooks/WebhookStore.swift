/// What a store keeps of webhooks: each app's endpoints, the events they are owed, and the
/// deliveries that carry them (see ``WebhookDispatcher``).
///
/// Events of changes are recorded by the store's own commit, in the group's transaction, when
/// ``webhookInterest`` says an endpoint wants them (``ChangeEvents``); other events through
/// ``recordWebhookEvents(appID:_:)``. Each endpoint has a cursor: the last event it has had.
///
/// Deliveries are made by whichever node holds the endpoint's lease: every write a delivery
/// makes names the node, and changes nothing when the lease is another's (then it answers
/// `false`, and the node stops delivering to that endpoint).
public protocol WebhookStore: Sendable {
    /// What the app's endpoints want, as this store's commits ask it.
    var webhookInterest: WebhookInterest { get }

    // MARK: Endpoints

    /// Inserts an endpoint, its cursor at the app's latest event: it is owed every event
    /// recorded from now on.
    func insertWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws -> WebhookEndpoint
    func webhookEndpoints(appID: String) async throws -> [WebhookEndpoint]
    func webhookEndpoint(appID: String, id: String) async throws -> WebhookEndpoint?
    /// Deletes an endpoint and its deliveries; `false` when there was none.
    func deleteWebhookEndpoint(appID: String, id: String) async throws -> Bool
    /// Replaces an endpoint's secrets; `false` when there is no such endpoint.
    func setWebhookSecrets(appID: String, id: String, secrets: WebhookSecrets) async throws -> Bool
    /// Enables an endpoint again and makes `delivery` (by default the delivery it was disabled
    /// with, if any) pending at `now`, to be sent again with its id.
    func redeliverWebhook(appID: String, endpointID: String, delivery: String?, now: Int64) async throws -> WebhookRedelivery
    /// Reads every app's endpoints again when another node changed them (PostgreSQL), so that
    /// ``webhookInterest`` follows; a store with one writer has nothing to do.
    func refreshWebhookInterest() async throws

    // MARK: Events

    /// Records events that are not changes after the app's latest change, those that an
    /// endpoint wants (see ``WebhookPosition``).
    func recordWebhookEvents(appID: String, _ events: [NewWebhookEvent]) async throws
    /// The name of a space by its id, for events about its buckets; `nil` when it is gone.
    func spaceName(appID: String, spaceID: String) async throws -> String?
    /// Up to `limit` of the app's events after `position`, in order.
    func webhookEvents(appID: String, after position: WebhookPosition, limit: Int) async throws -> [WebhookEventRecord]
    /// The app's events from `first` through `last`, in order.
    func webhookEvents(appID: String, from first: WebhookPosition, through last: WebhookPosition) async throws -> [WebhookEventRecord]
    /// How many of the app's events after the endpoint's cursor it wants, and the oldest one's time.
    func webhookBacklog(_ endpoint: WebhookEndpoint) async throws -> (events: Int, oldest: Int64?)

    // MARK: Deliveries

    /// Enabled endpoints that no live node holds and that have something to send at `now`:
    /// a pending delivery due, or events after their cursor.
    func webhookEndpointsWithWork(now: Int64, limit: Int) async throws -> [WebhookEndpoint]
    /// Takes (or renews) the endpoint's lease for `node` until `until`, when it is free, expired
    /// or the node's already; answers the endpoint as it stands, or `nil` when another node
    /// holds it (or it was deleted or disabled).
    func leaseWebhookEndpoint(appID: String, id: String, node: String, until: Int64, now: Int64) async throws -> WebhookEndpoint?
    /// Gives up the node's lease.
    func releaseWebhookEndpoint(appID: String, id: String, node: String) async throws
    /// Gives up the leases an earlier run of this server left (SQLite, whose one server is
    /// this one); on PostgreSQL a lease left by a node that is gone ends with its time.
    func releaseStaleWebhookLeases() async throws
    /// The endpoint's pending delivery that goes first (the earliest events), if any.
    func pendingWebhookDelivery(appID: String, endpointID: String) async throws -> WebhookDelivery?
    /// Records a new pending delivery, and moves the endpoint's cursor past `skippedThrough`
    /// (events it did not want, up to the delivery's first); `false` when the lease is not the node's.
    func insertWebhookDelivery(_ delivery: WebhookDelivery, skippedThrough: WebhookPosition?, node: String) async throws -> Bool
    /// Moves the endpoint's cursor past events it does not want; `false` when the lease is not the node's.
    func skipWebhookEvents(appID: String, endpointID: String, through position: WebhookPosition, node: String) async throws -> Bool
    /// Records what an attempt of the delivery came to (``WebhookDelivery/state`` and the
    /// rest, as the dispatcher set them): a delivered one moves the endpoint's cursor past
    /// its last event, and `disabling` disables the endpoint; `false` when the lease is not the node's.
    func recordWebhookAttempt(_ delivery: WebhookDelivery, disabling: WebhookEndpoint.Disabled?, node: String) async throws -> Bool
    /// The endpoint's deliveries, newest first, `limit` of them created before `before`.
    func webhookDeliveries(appID: String, endpointID: String, before: Int64?, limit: Int) async throws -> [WebhookDelivery]
    func webhookDelivery(appID: String, endpointID: String, id: String) async throws -> WebhookDelivery?
    /// Deletes finished deliveries and events every endpoint of their app has had, all older
    /// than `before`; returns how many rows went.
    @discardableResult
    func pruneWebhooks(before: Int64) async throws -> Int
}

/// What ``WebhookStore/redeliverWebhook(appID:endpointID:delivery:now:)`` did.
public enum WebhookRedelivery: Sendable, Equatable {
    case noSuchEndpoint
    case noSuchDelivery
    /// The endpoint is enabled, and this delivery (if one was named or failed) is pending.
    case resumed(WebhookDelivery?)
}
