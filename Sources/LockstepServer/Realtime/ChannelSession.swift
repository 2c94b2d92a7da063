import LockstepCore
import Synchronization

/// One initialized channel of a streaming connection: the bucket it syncs, who the client is,
/// and where the client stands in the bucket's change feed.
///
/// Changes reach the client by two paths that must never cross: live, from the ``ChangeHub``
/// as they are accepted (on this connection, another one, or over HTTP), and from the store's
/// feed, when the client asks for the changes since a `cv` or when the live path skipped one.
/// The session keeps a cursor, the last change the client was sent, and sends a live change
/// only if it directly follows the cursor. Anything else — a `cv:` catch-up under way, a change
/// announced out of order, one never announced — makes it read the feed after the cursor until
/// it has caught up, and only then go live again. So every change goes out once, in feed order.
final class ChannelSession: Sendable {
    let number: Int
    let bucket: String
    let scope: BucketScope
    let identity: AccountService.Identity
    let clientID: String

    /// What the session needs from its connection and server.
    struct Environment: Sendable {
        var store: any SyncStore
        var hub: ChangeHub
        var outbox: SocketOutbox
        var encoding: ChangeEncodingCache
        /// Changes per `c:` message of a catch-up.
        var pageSize: Int
        /// Ends the connection when the session cannot go on (its feed cannot be read).
        var fail: @Sendable (String) -> Void
    }

    private struct Delivery {
        /// The last change the client was sent; `nil` until the session starts.
        var cursor: ChangeVersion?
        /// Whether live changes go straight out (no catch-up under way).
        var isLive = false
        /// A change arrived that the live path did not send: the catch-up must look again.
        var missedChanges = false
        /// A `cv:` request waits for its answer, which is `c:[]` if nothing is new.
        var mustAnswer = false
        var catchUp: Task<Void, Never>?
        var isClosed = false
    }

    private let environment: Environment
    private let delivery = Mutex(Delivery())
    private let subscription = Mutex<ChangeHub.Subscription?>(nil)

    /// Makes the session and subscribes it to its bucket's changes; nothing is sent until ``start(at:)``.
    init(number: Int, bucket: String, scope: BucketScope, identity: AccountService.Identity, clientID: String, environment: Environment) {
        self.number = number
        self.bucket = bucket
        self.scope = scope
        self.identity = identity
        self.clientID = clientID
        self.environment = environment
        let subscription = environment.hub.subscribe(scope) { [self] event in receive(event) }
        self.subscription.withLock { $0 = subscription }
    }

    /// Starts sending the changes after `current`, the bucket's version when the client was
    /// authorized (read after subscribing, so no change falls between the two).
    func start(at current: ChangeVersion) {
        delivery.withLock { delivery in
            delivery.cursor = current
            if delivery.missedChanges { startCatchUp(&delivery) } else { delivery.isLive = true }
        }
    }

    /// Answers `cv:<cv>`: every change after `cursor`, oldest first, then live changes; or
    /// `cv:?` when the bucket has no such version.
    func sendChanges(after cursor: ChangeVersion) {
        delivery.withLock { delivery in
            guard !delivery.isClosed else { return }
            delivery.cursor = cursor
            delivery.isLive = false
            delivery.missedChanges = true
            delivery.mustAnswer = true
            startCatchUp(&delivery)
        }
    }

    /// Stops delivery and leaves the hub. The session is done.
    func close() {
        let catchUp = delivery.withLock { delivery in
            delivery.isClosed = true
            return delivery.catchUp
        }
        catchUp?.cancel()
        if let subscription = subscription.withLock({ $0 }) { environment.hub.unsubscribe(subscription) }
    }

    /// Called by the hub for each change to the bucket, synchronously: it only enqueues.
    private func receive(_ event: ChangeEvent) {
        let bytes = environment.encoding.bytes(for: event)
        delivery.withLock { delivery in
            guard !delivery.isClosed else { return }
            guard delivery.isLive, let cursor = delivery.cursor else {
                delivery.missedChanges = true
                return
            }
            if event.version.epoch == cursor.epoch && event.version.sequence <= cursor.sequence { return }
            if event.version.epoch == cursor.epoch && event.version.sequence == cursor.sequence + 1 {
                delivery.cursor = event.version
                environment.outbox.enqueue(.announcement(channel: number, change: bytes))
                return
            }
            // A change before this one has not been announced (yet): read the feed instead.
            delivery.isLive = false
            delivery.missedChanges = true
            startCatchUp(&delivery)
        }
    }

    private func startCatchUp(_ delivery: inout Delivery) {
        guard delivery.catchUp == nil, !delivery.isClosed else { return }
        delivery.catchUp = Task { await catchUp() }
    }

    /// Sends the feed after the cursor, a page at a time and paced by the reader, until it
    /// has caught up with no change missed meanwhile; then goes live.
    private func catchUp() async {
        while true {
            guard let cursor = delivery.withLock({ delivery -> ChangeVersion? in
                guard !delivery.isClosed else { return nil }
                delivery.missedChanges = false
                return delivery.cursor
            }) else { return }

            let records: [ChangeRecord]?
            do {
                records = try await environment.store.feed(scope, after: cursor, limit: environment.pageSize)
            } catch {
                if !delivery.withLock({ $0.isClosed }) { environment.fail("the changes of \(scope) could not be read: \(error)") }
                return
            }
            guard let records else {
                await restart(from: cursor)
                continue
            }

            let encoded = records.map { record in
                ChangeEvent(scope: scope, change: record, version: ChangeVersion(epoch: cursor.epoch, sequence: record.sequence))
                    .wireJSON.jsonBytes
            }
            let sent = delivery.withLock { delivery -> Bool in
                // A newer `cv:` request moved the cursor while the feed was read: start over from it.
                guard !delivery.isClosed, delivery.cursor == cursor else { return false }
                if !encoded.isEmpty || delivery.mustAnswer {
                    environment.outbox.enqueue(.text(SocketReply.changes(number, encoded)))
                }
                delivery.mustAnswer = false
                if let last = records.last { delivery.cursor = ChangeVersion(epoch: cursor.epoch, sequence: last.sequence) }
                return true
            }
            guard sent else { continue }
            if records.count == environment.pageSize {
                await environment.outbox.waitForRoom()
                continue
            }
            let isLive = delivery.withLock { delivery -> Bool in
                guard !delivery.missedChanges else { return false }
                delivery.isLive = true
                delivery.catchUp = nil
                return true
            }
            if isLive { return }
        }
    }

    /// The bucket has no version `cursor` (the client's `cv` is from elsewhere, or the bucket
    /// was made anew): the client must index again, and follows from the current version.
    private func restart(from cursor: ChangeVersion) async {
        let current: ChangeVersion
        do {
            current = try await environment.store.currentVersion(of: scope)
        } catch {
            if !delivery.withLock({ $0.isClosed }) { environment.fail("the version of \(scope) could not be read: \(error)") }
            delivery.withLock { $0.isClosed = true }
            return
        }
        delivery.withLock { delivery in
            guard !delivery.isClosed, delivery.cursor == cursor else { return }
            environment.outbox.enqueue(.text(SocketReply.channel(number, "cv", "?")))
            delivery.cursor = current
            delivery.mustAnswer = false
        }
    }
}
