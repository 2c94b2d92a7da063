import LockstepCore

/// Endpoints and deliveries as the admin API and the console's report write them (times in
/// milliseconds since the Unix epoch). A secret is never among them: the routes that make one
/// add it.
enum WebhookJSON {
    static func json(_ endpoint: WebhookEndpoint) -> JSONObject {
        var json: JSONObject = [
            "id": .string(endpoint.id), "url": .string(endpoint.url), "events": .array(endpoint.filter.typeNames.map(JSONValue.string)),
            "buckets": .array(endpoint.filter.buckets.map { .string($0.text) }), "description": .string(endpoint.description),
            "createdAt": .integer(endpoint.createdAt / 1_000_000), "enabled": .bool(endpoint.disabled == nil),
        ]
        if let disabled = endpoint.disabled {
            json["disabledAt"] = .integer(disabled.at / 1_000_000)
            json["disabledReason"] = .string(disabled.reason)
        }
        if endpoint.secrets.previous != nil, let until = endpoint.secrets.previousUntil {
            json["previousSecretUntil"] = .integer(until / 1_000_000)
        }
        return json
    }

    static func json(_ delivery: WebhookDelivery) -> JSONObject {
        var json: JSONObject = [
            "id": .string(delivery.id), "state": .string(delivery.state.rawValue), "events": .integer(Int64(delivery.eventCount)),
            "first": .string("evt_\(delivery.first)"), "last": .string("evt_\(delivery.last)"),
            "createdAt": .integer(delivery.createdAt / 1_000_000), "attempts": .integer(Int64(delivery.attempts)),
        ]
        if delivery.state == .pending { json["nextAttemptAt"] = .integer(delivery.nextAttemptAt / 1_000_000) }
        if let finished = delivery.finishedAt { json["finishedAt"] = .integer(finished / 1_000_000) }
        if let attempt = delivery.lastAttempt {
            var last: JSONObject = [
                "at": .integer(attempt.at / 1_000_000), "response": .string(attempt.response),
                "milliseconds": .number(Double(attempt.durationNanoseconds) / 1e6),
            ]
            if let status = attempt.status { last["status"] = .integer(Int64(status)) }
            if let error = attempt.error { last["error"] = .string(error) }
            json["lastAttempt"] = .object(last)
        }
        return json
    }
}
