import HTTPTypes
import Hummingbird
import LockstepCore

/// The webhook endpoints of an app, under `/1/{app}/__admin__/webhooks`, for the admin token
/// alone (as the rest of the admin API, ``AdminRoutes``):
///
/// | request | answer |
/// |---|---|
/// | `GET webhooks` | `{"endpoints":[…]}`, each as `GET webhooks/{id}` without its backlog |
/// | `POST webhooks` `{"url","events":[…],"buckets"?:[…],"description"?}` | 201, the endpoint with its `"secret"` (shown this once) |
/// | `GET webhooks/{id}` | `{"id","url","events","buckets","description","createdAt","enabled","disabledAt"?,"disabledReason"?,"previousSecretUntil"?,"pending":{"events","oldestAt"?}}` |
/// | `DELETE webhooks/{id}` | 204 |
/// | `POST webhooks/{id}/test` | `{"status"?,"response","error"?,"milliseconds"}`: one `webhook.test` event sent now |
/// | `POST webhooks/{id}/rotate` `{"overlapSeconds"?}` | the endpoint with its new `"secret"`; the old one signs too for the overlap (a day by default) |
/// | `GET webhooks/{id}/deliveries?before=&limit=` | `{"deliveries":[…],"before"?}`, newest first |
/// | `GET webhooks/{id}/deliveries/{delivery}` | the delivery and its `"events"` |
/// | `POST webhooks/{id}/replay` `{"delivery"?}` | enables the endpoint, and sends the delivery (by default the one it was disabled with) again, same `webhook-id` |
///
/// Times are milliseconds since the Unix epoch.
struct WebhookRoutes<Context: RequestContext> {
    let services: LockstepServices

    /// The default overlap of a rotation: the old secret signs for a day more.
    static var defaultOverlapSeconds: Double { 86_400 }

    func add(to router: Router<Context>) {
        let group = router.group("/1/{app}/__admin__/webhooks")
        group.get { request, context in try await list(request, context) }
        group.post { request, context in try await add(request, context) }
        group.get("{id}") { request, context in try await show(request, context) }
        group.delete("{id}") { request, context in try await remove(request, context) }
        group.post("{id}/test") { request, context in try await test(request, context) }
        group.post("{id}/rotate") { request, context in try await rotate(request, context) }
        group.get("{id}/deliveries") { request, context in try await deliveries(request, context) }
        group.get("{id}/deliveries/{delivery}") { request, context in try await delivery(request, context) }
        group.post("{id}/replay") { request, context in try await replay(request, context) }
    }

    private var webhooks: WebhookService { services.webhooks }

    private func admin(_ request: Request, _ context: Context) async throws -> String {
        try await services.requireAdmin(request, app: try context.parameters.require("app")).appID
    }

    private func list(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        let endpoints = try await answering { try await webhooks.list(appID: app) }
        return .json(["endpoints": .array(endpoints.map { .object(WebhookJSON.json($0)) })])
    }

    private func add(_ request: Request, _ context: Context) async throws -> Response {
        var request = request
        let app = try await admin(request, context)
        let body = try await request.jsonObjectBody(limit: 64 * 1024)
        let endpoint = try await answering { try await webhooks.add(appID: app, body: body) }
        var json = WebhookJSON.json(endpoint)
        json["secret"] = .string(endpoint.secrets.current.text)
        return .json(.object(json), status: .created)
    }

    private func show(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        let id = try context.parameters.require("id")
        let endpoint = try await answering { try await webhooks.endpoint(appID: app, id: id) }
        let backlog = try await answering { try await webhooks.backlog(endpoint) }
        var json = WebhookJSON.json(endpoint)
        var pending: JSONObject = ["events": .integer(Int64(backlog.events))]
        if let oldest = backlog.oldest { pending["oldestAt"] = .integer(oldest / 1_000_000) }
        json["pending"] = .object(pending)
        return .json(.object(json))
    }

    private func remove(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        let id = try context.parameters.require("id")
        try await answering { try await webhooks.remove(appID: app, id: id) }
        return .empty(status: .noContent)
    }

    private func test(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        let id = try context.parameters.require("id")
        let result = try await answering { try await webhooks.test(appID: app, id: id) }
        var json: JSONObject = ["response": .string(result.response), "milliseconds": .number(result.milliseconds)]
        if let status = result.status { json["status"] = .integer(Int64(status)) }
        if let error = result.error { json["error"] = .string(error) }
        return .json(.object(json))
    }

    private func rotate(_ request: Request, _ context: Context) async throws -> Response {
        var request = request
        let app = try await admin(request, context)
        let id = try context.parameters.require("id")
        let body = try await request.optionalJSONObjectBody(limit: 4096)
        var overlap = Self.defaultOverlapSeconds
        if let value = body["overlapSeconds"], !value.isNull {
            guard let seconds = value.doubleValue else { throw HTTPError(.badRequest, message: "\"overlapSeconds\" must be a number") }
            overlap = seconds
        }
        let endpoint = try await answering { try await webhooks.rotate(appID: app, id: id, overlapSeconds: overlap) }
        var json = WebhookJSON.json(endpoint)
        json["secret"] = .string(endpoint.secrets.current.text)
        return .json(.object(json))
    }

    private func deliveries(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        let id = try context.parameters.require("id")
        let limit = try request.queryInteger("limit", range: 1...1000) ?? 50
        let before = try request.queryInteger("before", range: 0...Int.max).map { Int64($0) * 1_000_000 }
        let deliveries = try await answering { try await webhooks.deliveries(appID: app, id: id, before: before, limit: limit) }
        var json: JSONObject = ["deliveries": .array(deliveries.map { .object(WebhookJSON.json($0)) })]
        if deliveries.count == limit, let last = deliveries.last { json["before"] = .integer(last.createdAt / 1_000_000 + 1) }
        return .json(.object(json))
    }

    private func delivery(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await admin(request, context)
        let id = try context.parameters.require("id")
        let name = try context.parameters.require("delivery")
        let (delivery, events) = try await answering { try await webhooks.delivery(appID: app, id: id, delivery: name) }
        var json = WebhookJSON.json(delivery)
        json["body"] = .string(String(decoding: WebhookBody.bytes(events), as: UTF8.self))
        return .json(.object(json))
    }

    private func replay(_ request: Request, _ context: Context) async throws -> Response {
        var request = request
        let app = try await admin(request, context)
        let id = try context.parameters.require("id")
        let body = try await request.optionalJSONObjectBody(limit: 4096)
        var named: String?
        if let value = body["delivery"], !value.isNull {
            guard let text = value.stringValue else { throw HTTPError(.badRequest, message: "\"delivery\" must be a delivery id") }
            named = text
        }
        let resumed = try await answering { try await webhooks.replay(appID: app, id: id, delivery: named) }
        let endpoint = try await answering { try await webhooks.endpoint(appID: app, id: id) }
        var json: JSONObject = ["endpoint": .object(WebhookJSON.json(endpoint))]
        if let resumed { json["delivery"] = .object(WebhookJSON.json(resumed)) }
        return .json(.object(json))
    }

    /// Runs a service call, its refusals answered with their status and message.
    private func answering<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as WebhookError {
            throw HTTPError(HTTPResponse.Status(code: error.status.rawValue), message: error.message)
        }
    }
}

extension Request {
    /// The body as a JSON object; an empty body is an empty object.
    mutating func optionalJSONObjectBody(limit: Int) async throws -> JSONObject {
        let buffer = try await collectBody(upTo: limit)
        guard buffer.readableBytes > 0 else { return [:] }
        guard case .object(let members) = try? JSONValue(parsing: Array(buffer.readableBytesView)) else {
            throw HTTPError(.badRequest, message: "the body must be a JSON object (or empty)")
        }
        return members
    }
}
