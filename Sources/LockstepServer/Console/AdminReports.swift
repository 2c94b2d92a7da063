import LockstepCore

/// The console's two live reports, the same whether read over HTTP (`GET __admin__/stats`,
/// `GET __admin__/presence`) or pushed on the admin channel (``AdminChannel``): one builder,
/// so the page reads one shape from either.
struct AdminReports: Sendable {
    let services: LockstepServices

    /// Version, uptime, open streaming connections, the store and its nodes, and the app's
    /// change count on every node (times in ms).
    func stats(appID app: String) async throws -> JSONValue {
        let summary = try await services.store.consoleSummary(appID: app)
        let now = services.clock.now()
        let connections = services.connections.openConnections.filter { $0.appID == app }.count
        return [
            "version": .string(LockstepVersion.current),
            "now": .integer(now / 1_000_000), "startedAt": .integer(services.startedAt / 1_000_000),
            "uptimeSeconds": .integer((now - services.startedAt) / 1_000_000_000),
            "connections": .integer(Int64(connections)),
            "store": ["kind": .string(summary.kind), "nodes": .array(summary.nodes.map(JSONValue.string)), "node": .string(services.store.nodeID)],
            "users": .integer(Int64(summary.users)), "changes": .integer(summary.changes),
            "timedStore": .bool(services.releases != nil),
        ]
    }

    /// The presence buckets, who holds each presence object (on any node), and this node's
    /// open connections.
    func presence(appID app: String) async throws -> JSONValue {
        let claims = try await services.store.presenceClaims(appID: app)
        var presenceBuckets: [JSONValue] = []
        for name in Set(try await services.store.consoleBuckets(appID: app).map(\.name)).sorted() {
            if let mode = try await services.options(appID: app, bucket: name).presence {
                presenceBuckets.append(["name": .string(name), "presence": .string(mode.rawValue)])
            }
        }
        let connections = services.connections.openConnections.filter { $0.appID == app }
        return [
            "buckets": .array(presenceBuckets),
            "claims": .array(claims.map { claim in
                [
                    "bucket": .string(claim.scope.bucket), "owner": .string(claim.scope.ownerKey), "id": .string(claim.key),
                    "holder": .string(claim.holder.description), "node": .string(claim.nodeID),
                ]
            }),
            "connections": .array(connections.map { info in
                [
                    "id": .string(info.id.description), "holder": .string("connection:\(info.id.rawValue)"),
                    "address": info.remoteAddress.map(JSONValue.string) ?? .null, "openedAt": .integer(info.openedAt / 1_000_000),
                ]
            }),
            "node": .string(services.store.nodeID),
        ]
    }

    /// The app's webhook endpoints, each with its backlog and its latest deliveries (the
    /// console's Webhooks view; the same shapes as the webhook admin API's).
    func webhooks(appID app: String) async throws -> JSONValue {
        var endpoints: [JSONValue] = []
        for endpoint in try await services.store.webhookEndpoints(appID: app) {
            var json = WebhookJSON.json(endpoint)
            let backlog = try await services.store.webhookBacklog(endpoint)
            var pending: JSONObject = ["events": .integer(Int64(backlog.events))]
            if let oldest = backlog.oldest { pending["oldestAt"] = .integer(oldest / 1_000_000) }
            json["pending"] = .object(pending)
            let deliveries = try await services.store.webhookDeliveries(appID: app, endpointID: endpoint.id, before: nil, limit: Self.deliveriesShown)
            json["deliveries"] = .array(deliveries.map { .object(WebhookJSON.json($0)) })
            endpoints.append(.object(json))
        }
        return ["endpoints": .array(endpoints)]
    }

    /// The latest deliveries of each endpoint the webhooks report shows.
    static let deliveriesShown = 10
}
