import Logging
public import ServiceLifecycle
import Synchronization

/// Delivers every app's webhook events, on each node, beside the HTTP server.
///
/// Each endpoint with something to send is worked by one ``WebhookWorker`` at a time, on the
/// node that holds the endpoint's lease in the store: its deliveries go one after the other, in
/// order, and none is in flight on two nodes at once. Workers of different endpoints run side
/// by side (their requests, ``WebhookLimits/concurrentRequests`` at most), so a slow or dead
/// endpoint holds up nobody else; and none of this runs on the write path, which only records
/// events (``ChangeEvents``) and wakes the dispatcher.
///
/// The dispatcher looks for endpoints with work every ``WebhookLimits/pollSeconds`` (a retry
/// coming due, events another node committed, an endpoint another node gave up) and at once
/// when this node commits an event.
public final class WebhookDispatcher: Service {
    let store: any SyncStore
    let limits: WebhookLimits
    let clock: ServerClockSource
    let logger: Logger
    let sender: WebhookSender
    let slots: RequestSlots
    /// The workers running here, by endpoint, each with the signal that wakes it.
    private let running = Mutex<[EndpointKey: WakeSignal]>([:])
    private let wakes: AsyncStream<Void>
    private let wakeInput: AsyncStream<Void>.Continuation
    /// Told of each app whose webhooks moved on this node (the console's live view follows them).
    let progress: @Sendable (_ appID: String) -> Void

    struct EndpointKey: Hashable, Sendable {
        let appID: String
        let id: String
    }

    init(
        store: any SyncStore, limits: WebhookLimits, clock: ServerClockSource, logger: Logger, hub: ChangeHub,
        progress: @escaping @Sendable (_ appID: String) -> Void = { _ in }
    ) {
        self.store = store
        self.progress = progress
        self.limits = limits
        self.clock = clock
        self.logger = logger
        sender = WebhookSender(limits: limits)
        slots = RequestSlots(limits.concurrentRequests)
        (wakes, wakeInput) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let interest = store.webhookInterest
        hub.observeCommits { [weak self] appID, _ in
            guard interest.hasEndpoints(appID: appID) else { return }
            self?.wake(appID: appID)
        }
    }

    /// Tells the dispatcher that the app recorded events: its idle workers go on, and its
    /// other endpoints are looked at now.
    func wake(appID: String) {
        let signals = running.withLock { running in running.filter { $0.key.appID == appID }.map(\.value) }
        for signal in signals { signal.raise() }
        wakeInput.yield()
    }

    public func run() async throws {
        do {
            try await store.releaseStaleWebhookLeases()
        } catch {
            logger.error("webhooks: releasing the leases of an earlier run failed: \(error)")
        }
        let ticking = Task { [wakeInput, limits] in
            while (try? await Task.sleep(for: .seconds(limits.pollSeconds))) != nil { wakeInput.yield() }
        }
        defer { ticking.cancel() }
        var lastPrune = ContinuousClock.now - .seconds(3600)
        var lastMetrics = ContinuousClock.now - .seconds(WebhookMetrics.refreshSeconds)
        await withDiscardingTaskGroup { group in
            await withGracefulShutdownHandler {
                for await _ in wakes {
                    do {
                        try await store.refreshWebhookInterest()
                        for endpoint in try await store.webhookEndpointsWithWork(now: clock.now(), limit: 1000) {
                            let key = EndpointKey(appID: endpoint.appID, id: endpoint.id)
                            guard let signal = claim(key) else { continue }
                            group.addTask { await WebhookWorker(dispatcher: self, key: key, signal: signal).run() }
                        }
                    } catch is CancellationError {
                        break
                    } catch {
                        logger.error("webhooks: looking for endpoints with events to send failed: \(error)")
                    }
                    if ContinuousClock.now - lastPrune > .seconds(min(3600, max(limits.retentionSeconds / 4, 1))) {
                        lastPrune = ContinuousClock.now
                        await prune()
                    }
                    if ContinuousClock.now - lastMetrics > .seconds(WebhookMetrics.refreshSeconds) {
                        lastMetrics = ContinuousClock.now
                        await refreshGauges()
                    }
                    // Under a stream of commits a wake comes with each: running workers hear of
                    // them through their signals, and the store is asked about the rest ten
                    // times a second at most.
                    try? await Task.sleep(for: .milliseconds(100))
                }
            } onGracefulShutdown: { [wakeInput] in
                wakeInput.finish()
            }
            // The stream ended: the server is stopping. Workers stop between requests.
            group.cancelAll()
        }
    }

    /// Marks the endpoint as worked here; `nil` when a worker of it runs already.
    private func claim(_ key: EndpointKey) -> WakeSignal? {
        running.withLock { running in
            guard running[key] == nil else { return nil }
            let signal = WakeSignal()
            running[key] = signal
            return signal
        }
    }

    /// Ends a worker's claim, unless it was woken meanwhile (then it goes on: `false`).
    func retire(_ key: EndpointKey, signal: WakeSignal) -> Bool {
        running.withLock { running in
            if signal.take() { return false }
            running[key] = nil
            return true
        }
    }

    /// Ends a worker's claim, woken or not.
    func forget(_ key: EndpointKey) {
        running.withLock { running in running[key] = nil }
    }

    private func prune() async {
        do {
            let pruned = try await store.pruneWebhooks(before: clock.now() - Int64(limits.retentionSeconds * 1e9))
            if pruned > 0 { logger.info("webhooks: pruned \(pruned) delivered events and finished deliveries") }
        } catch {
            logger.error("webhooks: pruning old events and deliveries failed: \(error)")
        }
    }

    /// Sets every endpoint's backlog gauges (``WebhookMetrics``).
    private func refreshGauges() async {
        guard store.webhookInterest.hasAnyEndpoints else { return }
        do {
            let now = clock.now()
            for app in try await store.apps() where store.webhookInterest.hasEndpoints(appID: app.id) {
                for endpoint in try await store.webhookEndpoints(appID: app.id) {
                    let backlog = try await store.webhookBacklog(endpoint)
                    WebhookMetrics.pendingEvents(appID: app.id, endpointID: endpoint.id).record(backlog.events)
                    WebhookMetrics.oldestPendingSeconds(appID: app.id, endpointID: endpoint.id)
                        .record(backlog.oldest.map { Double(now - $0) / 1e9 } ?? 0)
                }
            }
        } catch {
            logger.error("webhooks: reading the endpoints' backlogs for the metrics failed: \(error)")
        }
    }
}
