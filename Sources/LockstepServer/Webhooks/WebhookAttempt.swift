/// One attempt of a delivery: its request (signed afresh, with the time it is sent) and what
/// its answer makes of the delivery.
struct WebhookAttempt: Sendable {
    let limits: WebhookLimits

    /// The request carrying `events` as delivery `id`, signed with the endpoint's secrets of
    /// the moment (both during a rotation's overlap).
    static func request(id: String, body: [UInt8], endpoint: WebhookEndpoint, url: WebhookURL, now: Int64) -> WebhookSender.Request {
        let timestamp = now / 1_000_000_000
        let signature = WebhookSignature.header(id: id, timestamp: timestamp, body: body, secrets: endpoint.secrets.signing(at: now))
        return WebhookSender.Request(
            url: url,
            headers: [
                ("webhook-id", id), ("webhook-timestamp", String(timestamp)), ("webhook-signature", signature),
                ("User-Agent", "Lockstep-Webhooks/\(LockstepVersion.current)"),
            ],
            body: body)
    }

    /// The delivery after an attempt made at `now` that got `result`, and the endpoint's
    /// disabling when the attempt ends it: a 2xx delivers; a 410 disables the endpoint at
    /// once; anything else is retried (``WebhookRetryPolicy``) until the retry period has
    /// passed since the first attempt, and then disables it.
    func outcome(
        of result: Result<WebhookSender.Response, WebhookSendError>, for delivery: WebhookDelivery, at now: Int64, duration: Int64,
        random: Double
    ) -> (delivery: WebhookDelivery, disabling: WebhookEndpoint.Disabled?) {
        var delivery = delivery
        delivery.attempts += 1
        let firstAttempt = delivery.firstAttemptAt ?? now
        delivery.firstAttemptAt = firstAttempt
        let error: String?
        switch result {
        case .success(let response):
            let text = String(decoding: response.body, as: UTF8.self)
            let succeeded = (200..<300).contains(response.status)
            error = succeeded ? nil : "the endpoint answered \(response.status)"
            delivery.lastAttempt = .init(at: now, status: response.status, error: error, response: text, durationNanoseconds: duration)
            if succeeded {
                delivery.state = .delivered
                delivery.finishedAt = now
                return (delivery, nil)
            }
            if response.status == 410 {
                delivery.state = .failed
                delivery.finishedAt = now
                return (delivery, .init(at: now, reason: "the endpoint answered 410 Gone: it asked for no more deliveries"))
            }
        case .failure(let failure):
            error = failure.description
            delivery.lastAttempt = .init(at: now, status: nil, error: error, response: "", durationNanoseconds: duration)
        }
        let policy = WebhookRetryPolicy(limits: limits)
        if policy.givesUp(firstAttempt: firstAttempt, now: now) {
            delivery.state = .failed
            delivery.finishedAt = now
            let period = WebhookLimits.describe(seconds: limits.retryPeriodSeconds)
            return (delivery, .init(
                at: now, reason: "delivery \(delivery.id) failed for \(period) (\(delivery.attempts) attempts); the last: \(error ?? "?")"))
        }
        let wait = policy.delaySeconds(afterFailures: delivery.attempts, random: random)
        delivery.nextAttemptAt = now + Int64(wait * 1e9)
        return (delivery, nil)
    }
}
