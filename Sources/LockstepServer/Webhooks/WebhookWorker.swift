import Logging

/// Delivers one endpoint's events, in order, while this node holds its lease.
///
/// Each round takes the endpoint's pending delivery (a retry, or one made pending again by a
/// replay), or makes the next one from the events after its cursor that it wants (up to
/// ``WebhookLimits/maximumBatchEvents`` and ``WebhookLimits/maximumBatchBytes``), records it,
/// and only then sends it: so its `webhook-id` is the same on every attempt, whatever happens
/// to this node between two. A delivery not due yet is waited for here, the lease renewed
/// meanwhile (renewed before a third of it is left). With nothing left, the worker waits a moment for its app's next events, then
/// gives the lease up and ends.
struct WebhookWorker: Sendable {
    let dispatcher: WebhookDispatcher
    let key: WebhookDispatcher.EndpointKey
    let signal: WakeSignal

    private var store: any SyncStore { dispatcher.store }
    private var limits: WebhookLimits { dispatcher.limits }
    private var node: String { dispatcher.store.nodeID }
    private var lease: Int64 { Int64(limits.leaseSeconds * 1e9) }
    /// How long a worker with nothing to send waits for more before it gives the lease up.
    private static let idleLinger = Duration.seconds(1)

    /// The lease was taken over by another node (this one stalled past it): stop.
    private struct LeaseLost: Error {}

    /// Why a worker's round ended.
    private enum End {
        /// Another node holds the endpoint (or it is disabled or gone): it is theirs.
        case notLeased
        /// Nothing is left to send; the lease is held still.
        case idle
        /// The endpoint was disabled by this round's delivery (its lease went with it).
        case disabled
    }

    func run() async {
        while true {
            let end: End
            do {
                end = try await deliverWhileLeased()
            } catch is LeaseLost {
                dispatcher.logger.notice("webhooks: endpoint \(key.id) was taken over by another node")
                return dispatcher.forget(key)
            } catch {
                if !(error is CancellationError) {
                    // The store failed: the dispatcher's next poll tries again, here or elsewhere.
                    dispatcher.logger.error("webhooks: delivering to endpoint \(key.id) failed: \(error)")
                }
                await release()
                return dispatcher.forget(key)
            }
            switch end {
            case .notLeased, .disabled:
                return dispatcher.forget(key)
            case .idle:
                // Given up, so that any node may take it; woken meanwhile, this worker goes on.
                await release()
                if Task.isCancelled || dispatcher.retire(key, signal: signal) { return dispatcher.forget(key) }
            }
        }
    }

    /// Leases the endpoint and delivers until nothing is left (or the server stops).
    private func deliverWhileLeased() async throws -> End {
        var now = dispatcher.clock.now()
        guard var endpoint = try await store.leaseWebhookEndpoint(appID: key.appID, id: key.id, node: node, until: now + lease, now: now)
        else { return .notLeased }
        var leasedUntil = now + lease
        while true {
            try Task.checkCancellation()
            now = dispatcher.clock.now()
            // Renewed with a third of it left at the latest: an attempt (a timeout at most) or a
            // wait (a third of the lease at most) comes between two of these checks.
            if leasedUntil - now < lease * 2 / 3 {
                guard let renewed = try await store.leaseWebhookEndpoint(appID: key.appID, id: key.id, node: node, until: now + lease, now: now)
                else { throw LeaseLost() }
                endpoint = renewed
                leasedUntil = now + lease
            }
            guard let (delivery, events) = try await nextDelivery(&endpoint, now: now) else {
                // Nothing to send: wait a moment for the app's next events before giving up.
                if await signal.wait(timeout: Self.idleLinger) { continue }
                return .idle
            }
            if delivery.nextAttemptAt > now {
                // A retry not due yet: wait for it, renewing the lease on the way.
                try await Task.sleep(for: .nanoseconds(min(delivery.nextAttemptAt - now, lease / 3)))
                continue
            }
            // The endpoint as it stands now: a rotated secret signs this attempt.
            guard let current = try await store.webhookEndpoint(appID: key.appID, id: key.id), current.disabled == nil else { return .idle }
            endpoint.secrets = current.secrets
            let (attempted, disabling) = await attempt(delivery, events: events, endpoint: endpoint)
            guard try await store.recordWebhookAttempt(attempted, disabling: disabling, node: node) else { throw LeaseLost() }
            dispatcher.progress(key.appID)
            if attempted.state == .delivered {
                endpoint.cursor = max(endpoint.cursor, attempted.last)
                WebhookMetrics.eventsDelivered(appID: key.appID, endpointID: key.id).increment(by: attempted.eventCount)
            } else {
                WebhookMetrics.failures(appID: key.appID, endpointID: key.id).increment()
            }
            if let disabling {
                dispatcher.logger.warning("webhooks: endpoint \(key.id) of app \(key.appID) is disabled: \(disabling.reason)")
                return .disabled
            }
        }
    }

    /// The delivery to send next and its events (read here when this worker made it): the
    /// pending one, or a new one after the cursor; `nil` when there is none.
    private func nextDelivery(_ endpoint: inout WebhookEndpoint, now: Int64) async throws -> (WebhookDelivery, [WebhookEventRecord]?)? {
        if let pending = try await store.pendingWebhookDelivery(appID: key.appID, endpointID: key.id) { return (pending, nil) }
        let page = max(limits.maximumBatchEvents, 500)
        var after = endpoint.cursor
        while true {
            let events = try await store.webhookEvents(appID: key.appID, after: after, limit: page)
            var batch: [WebhookEventRecord] = []
            var bytes = 0
            for event in events where endpoint.filter.wants(event.type, bucket: event.bucket) {
                let size = WebhookBody.size(event)
                if !batch.isEmpty && (batch.count >= limits.maximumBatchEvents || bytes + size > limits.maximumBatchBytes) { break }
                batch.append(event)
                bytes += size
            }
            if let first = batch.first, let last = batch.last {
                let delivery = WebhookDelivery(
                    appID: key.appID, endpointID: key.id, id: WebhookDelivery.newID(), first: first.position, last: last.position,
                    eventCount: batch.count, createdAt: now, nextAttemptAt: now)
                guard try await store.insertWebhookDelivery(delivery, skippedThrough: nil, node: node) else { throw LeaseLost() }
                return (delivery, batch)
            }
            // None of these is wanted: the cursor moves past them.
            if let last = events.last { after = last.position }
            if events.count < page {
                if after > endpoint.cursor {
                    guard try await store.skipWebhookEvents(appID: key.appID, endpointID: key.id, through: after, node: node) else {
                        throw LeaseLost()
                    }
                    endpoint.cursor = after
                }
                return nil
            }
        }
    }

    /// Sends the delivery once, and answers what it came to.
    private func attempt(_ delivery: WebhookDelivery, events known: [WebhookEventRecord]?, endpoint: WebhookEndpoint) async
        -> (WebhookDelivery, WebhookEndpoint.Disabled?)
    {
        let attempt = WebhookAttempt(limits: limits)
        let now = dispatcher.clock.now()
        let events: [WebhookEventRecord]
        do {
            if let known {
                events = known
            } else {
                events = try await store.webhookEvents(appID: key.appID, from: delivery.first, through: delivery.last)
                    .filter { endpoint.filter.wants($0.type, bucket: $0.bucket) }
            }
        } catch {
            return attempt.outcome(of: .failure(.protocolError("reading the delivery's events failed: \(error)")), for: delivery, at: now, duration: 0, random: .random(in: 0...1))
        }
        guard !events.isEmpty else {
            // A delivery made pending again after its events were pruned: nothing left to send.
            var gone = delivery
            gone.state = .failed
            gone.finishedAt = now
            gone.lastAttempt = .init(at: now, status: nil, error: "its events are no longer kept", response: "", durationNanoseconds: 0)
            return (gone, nil)
        }
        let result: Result<WebhookSender.Response, WebhookSendError>
        let started = ContinuousClock.now
        do throws(WebhookURLError) {
            let url = try WebhookURL(endpoint.url)
            let request = WebhookAttempt.request(id: delivery.id, body: WebhookBody.bytes(events), endpoint: endpoint, url: url, now: now)
            let sender = dispatcher.sender
            result = await dispatcher.slots.holding {
                await Result(catching: { () async throws(WebhookSendError) in try await sender.send(request) })
            }
        } catch {
            result = .failure(.refused(error.description))
        }
        let elapsed = ContinuousClock.now - started
        let duration = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        WebhookMetrics.requestDuration.recordNanoseconds(duration)
        return attempt.outcome(of: result, for: delivery, at: dispatcher.clock.now(), duration: duration, random: .random(in: 0...1))
    }

    /// Gives the lease up, even while the server stops (a task of its own, not cancelled).
    private func release() async {
        let store = store
        let key = key
        let node = node
        await Task {
            do {
                try await store.releaseWebhookEndpoint(appID: key.appID, id: key.id, node: node)
            } catch {
                dispatcher.logger.error("webhooks: giving up the lease of endpoint \(key.id) failed: \(error)")
            }
        }.value
    }
}

extension Result where Failure == WebhookSendError {
    /// The result of `body`.
    init(catching body: () async throws(WebhookSendError) -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
