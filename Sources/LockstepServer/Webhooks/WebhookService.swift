import Foundation
public import LockstepCore

/// What the admin API does with an app's webhook endpoints (``WebhookRoutes``): add, list,
/// show, remove, test, rotate a secret, list deliveries, replay.
public struct WebhookService: Sendable {
    let store: any SyncStore
    let limits: WebhookLimits
    let clock: ServerClockSource
    let dispatcher: WebhookDispatcher

    /// The longest description.
    static let maximumDescriptionBytes = 512
    /// The most bucket patterns of one endpoint.
    static let maximumBucketPatterns = 100

    /// Adds an endpoint owed every event from now on; answers it with its new secret.
    public func add(appID: String, body: JSONObject) async throws(WebhookError) -> WebhookEndpoint {
        let url: WebhookURL
        do {
            url = try WebhookURL(try Self.string(body, "url", required: true) ?? "")
        } catch let error as WebhookURLError {
            throw WebhookError(.badRequest, error.description)
        } catch {
            throw error as? WebhookError ?? WebhookError(.badRequest, "\(error)")
        }
        let filter = try Self.filter(body)
        let description = try Self.string(body, "description", required: false) ?? ""
        guard description.utf8.count <= Self.maximumDescriptionBytes else {
            throw WebhookError(.badRequest, "a description may have at most \(Self.maximumDescriptionBytes) bytes")
        }
        // Checked now, for a clear answer; checked again at every request (DNS rebinding).
        do {
            _ = try await dispatcher.sender.allowedAddresses(url)
        } catch {
            throw WebhookError(.badRequest, "\(url) cannot be an endpoint: \(error)")
        }
        let existing = try await storing { try await store.webhookEndpoints(appID: appID) }
        guard limits.maximumEndpointsPerApp == 0 || existing.count < limits.maximumEndpointsPerApp else {
            throw WebhookError(.forbidden, "an app may have at most \(limits.maximumEndpointsPerApp) webhook endpoints (--webhook-max-endpoints)")
        }
        let endpoint = WebhookEndpoint(
            appID: appID, id: WebhookEndpoint.newID(), url: url.text, filter: filter, description: description,
            secrets: WebhookSecrets(current: .random()), createdAt: clock.now())
        let added = try await storing { try await store.insertWebhookEndpoint(endpoint) }
        dispatcher.progress(appID)
        return added
    }

    public func list(appID: String) async throws(WebhookError) -> [WebhookEndpoint] {
        try await storing { try await store.webhookEndpoints(appID: appID) }
    }

    public func endpoint(appID: String, id: String) async throws(WebhookError) -> WebhookEndpoint {
        guard let endpoint = try await storing({ try await store.webhookEndpoint(appID: appID, id: id) }) else {
            throw WebhookError(.notFound, "there is no webhook endpoint \(id)")
        }
        return endpoint
    }

    /// The events the endpoint is owed and has not had, and the oldest one's time.
    public func backlog(_ endpoint: WebhookEndpoint) async throws(WebhookError) -> (events: Int, oldest: Int64?) {
        try await storing { try await store.webhookBacklog(endpoint) }
    }

    public func remove(appID: String, id: String) async throws(WebhookError) {
        guard try await storing({ try await store.deleteWebhookEndpoint(appID: appID, id: id) }) else {
            throw WebhookError(.notFound, "there is no webhook endpoint \(id)")
        }
        dispatcher.progress(appID)
    }

    /// Gives the endpoint a new secret; the old one goes on signing for `overlapSeconds`.
    public func rotate(appID: String, id: String, overlapSeconds: Double) async throws(WebhookError) -> WebhookEndpoint {
        guard overlapSeconds >= 0, overlapSeconds <= 30 * 86_400 else {
            throw WebhookError(.badRequest, "overlapSeconds must be from 0 to 2592000 (30 days)")
        }
        var endpoint = try await endpoint(appID: appID, id: id)
        endpoint.secrets = endpoint.secrets.rotated(to: .random(), now: clock.now(), overlap: Int64(overlapSeconds * 1e9))
        let secrets = endpoint.secrets
        guard try await storing({ try await store.setWebhookSecrets(appID: appID, id: id, secrets: secrets) }) else {
            throw WebhookError(.notFound, "there is no webhook endpoint \(id)")
        }
        dispatcher.progress(appID)
        return endpoint
    }

    /// Sends one `webhook.test` event to the endpoint now, outside its order and not retried,
    /// and answers what came back.
    public func test(appID: String, id: String) async throws(WebhookError) -> WebhookTestResult {
        let endpoint = try await endpoint(appID: appID, id: id)
        let url: WebhookURL
        do {
            url = try WebhookURL(endpoint.url)
        } catch {
            throw WebhookError(.badRequest, error.description)
        }
        let now = clock.now()
        let suffix = Secrets.randomHex(byteCount: 8)
        var payload: [UInt8] = []
        payload.appendLiteral(#"{"app":"#)
        JSONSerializer.appendString(appID, to: &payload)
        payload.appendLiteral(#","endpoint":"#)
        JSONSerializer.appendString(id, to: &payload)
        payload.appendLiteral(#","message":"a test from lockstep webhooks test: verify its signature, then answer 2xx"}"#)
        var body: [UInt8] = []
        body.appendLiteral(#"{"events":["#)
        WebhookBody.append(id: "evt_test_" + suffix, type: "webhook.test", time: now, payload: String(decoding: payload, as: UTF8.self), to: &body)
        body.appendLiteral("]}")
        let request = WebhookAttempt.request(id: "msg_test_" + suffix, body: body, endpoint: endpoint, url: url, now: now)
        let started = ContinuousClock.now
        let sender = dispatcher.sender
        let result = await dispatcher.slots.holding {
            await Result(catching: { () async throws(WebhookSendError) in try await sender.send(request) })
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        switch result {
        case .success(let response):
            return WebhookTestResult(
                status: response.status, response: String(decoding: response.body, as: UTF8.self), error: nil, milliseconds: milliseconds)
        case .failure(let error):
            return WebhookTestResult(status: nil, response: "", error: error.description, milliseconds: milliseconds)
        }
    }

    public func deliveries(appID: String, id: String, before: Int64?, limit: Int) async throws(WebhookError) -> [WebhookDelivery] {
        _ = try await endpoint(appID: appID, id: id)
        return try await storing { try await store.webhookDeliveries(appID: appID, endpointID: id, before: before, limit: limit) }
    }

    /// One delivery and the events it carries (those still kept).
    public func delivery(appID: String, id: String, delivery: String) async throws(WebhookError) -> (WebhookDelivery, [WebhookEventRecord]) {
        let endpoint = try await endpoint(appID: appID, id: id)
        guard let found = try await storing({ try await store.webhookDelivery(appID: appID, endpointID: id, id: delivery) }) else {
            throw WebhookError(.notFound, "endpoint \(id) has no delivery \(delivery)")
        }
        let events = try await storing { try await store.webhookEvents(appID: appID, from: found.first, through: found.last) }
        return (found, events.filter { endpoint.filter.wants($0.type, bucket: $0.bucket) })
    }

    /// Enables the endpoint again, and sends `delivery` again (by default the one it was
    /// disabled with) with its own `webhook-id`, before anything after it.
    public func replay(appID: String, id: String, delivery: String?) async throws(WebhookError) -> WebhookDelivery? {
        let now = clock.now()
        switch try await storing({ try await store.redeliverWebhook(appID: appID, endpointID: id, delivery: delivery, now: now) }) {
        case .noSuchEndpoint:
            throw WebhookError(.notFound, "there is no webhook endpoint \(id)")
        case .noSuchDelivery:
            throw WebhookError(.notFound, "endpoint \(id) has no delivery \(delivery ?? "")")
        case .resumed(let resumed):
            dispatcher.wake(appID: appID)
            dispatcher.progress(appID)
            return resumed
        }
    }

    // MARK: Reading requests

    private static func string(_ body: JSONObject, _ name: String, required: Bool) throws(WebhookError) -> String? {
        guard let value = body[name], !value.isNull else {
            if required { throw WebhookError(.badRequest, "the body needs \"\(name)\"") }
            return nil
        }
        guard let text = value.stringValue else { throw WebhookError(.badRequest, "\"\(name)\" must be a string") }
        return text
    }

    private static func filter(_ body: JSONObject) throws(WebhookError) -> WebhookFilter {
        guard let names = body["events"]?.arrayValue, !names.isEmpty else {
            throw WebhookError(.badRequest, "the body needs \"events\": a list of one or more of \(WebhookEventType.names)")
        }
        var types = Set<WebhookEventType>()
        for name in names {
            guard let type = name.stringValue.flatMap(WebhookEventType.init(rawValue:)) else {
                throw WebhookError(.badRequest, "\(name) is not an event type: use \(WebhookEventType.names)")
            }
            types.insert(type)
        }
        var patterns: [BucketPattern] = []
        if let value = body["buckets"], !value.isNull {
            guard let list = value.arrayValue else { throw WebhookError(.badRequest, "\"buckets\" must be a list of bucket names or patterns") }
            guard list.count <= maximumBucketPatterns else {
                throw WebhookError(.badRequest, "an endpoint may name at most \(maximumBucketPatterns) bucket patterns")
            }
            for entry in list {
                guard let pattern = entry.stringValue.flatMap(BucketPattern.init) else {
                    throw WebhookError(.badRequest, "\(entry) is not a bucket pattern: use \(BucketPattern.rule)")
                }
                if !patterns.contains(pattern) { patterns.append(pattern) }
            }
        }
        return WebhookFilter(types: types, buckets: patterns)
    }

    /// Runs a store call; its failure is the server's (500), said without the store's details.
    private func storing<T>(_ body: () async throws -> T) async throws(WebhookError) -> T {
        do {
            return try await body()
        } catch {
            throw WebhookError(.internalServerError, "the store failed: \(error)")
        }
    }
}

/// What a test request came back with.
public struct WebhookTestResult: Sendable {
    public var status: Int?
    public var response: String
    public var error: String?
    public var milliseconds: Double
}

/// A refusal of the webhook admin API: its status and what was wrong.
public struct WebhookError: Error, Sendable, CustomStringConvertible {
    public enum Status: Int, Sendable {
        case badRequest = 400
        case forbidden = 403
        case notFound = 404
        case internalServerError = 500
    }

    public var status: Status
    public var message: String

    init(_ status: Status, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }
}
