import LockstepCore
import NIOCore
import Synchronization

/// One initialized channel of a streaming connection: the bucket it syncs, who the client is,
/// and where the client stands in the bucket's change feed.
///
/// After `init`, every change of the bucket reaches the channel exactly once and in feed
/// order, whatever the timing of the client's requests, live changes, changes announced late
/// or out of order (another node relaying), and reconnects:
///
/// - A channel sends nothing until its client asks: `cv:<cv>` starts it after `cv`; an index
///   walk (`i:`) starts it after the walk's `current`, once the walk's last page is sent.
///   (Simperium clients always send one of the two after `auth`; a client that sends neither
///   receives no changes, its own acknowledgements included, until it does.)
/// - The session keeps a cursor: the last change the client was sent, or told it has. It
///   never moves backwards: a `cv:` older than what the channel already received is answered
///   with only what it has not (`c:[]` when that is nothing); a `cv:` ahead of it moves it on.
/// - Changes reach the session by two paths that never cross: live, from the ``ChangeHub``,
///   and from the store's feed. A live change goes out only if it directly follows the
///   cursor; anything else (a `cv:` catch-up under way, a change announced out of order) makes
///   the session read the feed after the cursor until it has caught up, and only then go live.
///
/// A channel's access (``BucketAccess``: its scope, and its role in a space) is decided once,
/// at `init`, and never per change; a member who loses the space has the channel revoked
/// (``revoke(_:)``), which stops it before anything else reaches it.
final class ChannelSession: Sendable {
    let number: Int
    let bucket: String
    let access: BucketAccess
    let identity: AccountService.Identity
    let clientID: String
    /// Whether the client asked for Lockstep's extension fields (``ChangeEvent/extendedWireJSON``).
    let extensions: Bool

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
        /// The last change the client was sent, or told the server it has; `nil` until the
        /// client first asks (`cv:` or an index walk).
        var cursor: ChangeVersion?
        /// An index walk started the channel: changes wait until its last page is sent.
        var waitsForIndex = false
        /// Whether live changes go straight out (no catch-up under way).
        var isLive = false
        /// A change arrived that the live path did not send: the catch-up must look again.
        var missedChanges = false
        /// A `cv:` request waits for its answer, which is `c:[]` if nothing is new.
        var mustAnswer = false
        var catchUp: Task<Void, Never>?
        var isClosed = false
        /// Why the channel was revoked, if it was.
        var revocation: String?

        /// Whether changes may go out at all.
        var isStarted: Bool { cursor != nil && !waitsForIndex }
    }

    private let environment: Environment
    private let delivery = Mutex(Delivery())
    private let subscription = Mutex<ChangeHub.Subscription?>(nil)
    private let onClose: @Sendable () -> Void

    var scope: BucketScope { access.scope }

    /// Makes the session and subscribes it to its bucket's changes; nothing is sent until the
    /// client asks. `onClose` runs when the session closes (each time it is told to).
    init(
        number: Int, bucket: String, access: BucketAccess, identity: AccountService.Identity, clientID: String, extensions: Bool,
        environment: Environment, onClose: @escaping @Sendable () -> Void = {}
    ) {
        self.number = number
        self.bucket = bucket
        self.access = access
        self.identity = identity
        self.clientID = clientID
        self.extensions = extensions
        self.environment = environment
        self.onClose = onClose
        let subscription = environment.hub.subscribe(scope, on: environment.outbox.eventLoop) { [self] event in receive(event) }
        self.subscription.withLock { $0 = subscription }
    }

    /// Answers `cv:<cv>`: every change after `cv` the channel has not been sent, oldest first,
    /// then live changes; or `cv:?` when the bucket has no such version.
    func sendChanges(after requested: ChangeVersion) {
        delivery.withLock { delivery in
            guard !delivery.isClosed else { return }
            // An index walk under way is abandoned: the client follows its `cv` now.
            delivery.waitsForIndex = false
            if let cursor = delivery.cursor, cursor.epoch == requested.epoch, requested <= cursor {
                // Never backwards: what the client asks for again, it was already sent.
            } else {
                delivery.cursor = requested
            }
            delivery.isLive = false
            delivery.missedChanges = true
            delivery.mustAnswer = true
            startCatchUp(&delivery)
        }
    }

    /// Notes a page of an index walk sent to the client. The walk's first page starts a
    /// channel that had not started, at the walk's `current`; changes after it go out once the
    /// last page is sent, so a client never receives a change to an object it has not indexed.
    func indexPageSent(walkCurrent: ChangeVersion, isLast: Bool) {
        delivery.withLock { delivery in
            guard !delivery.isClosed else { return }
            if delivery.cursor == nil {
                delivery.cursor = walkCurrent
                delivery.waitsForIndex = true
            }
            guard isLast, delivery.waitsForIndex else { return }
            delivery.waitsForIndex = false
            delivery.isLive = false
            delivery.missedChanges = true
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
        onClose()
    }

    /// Closes the session because its client lost the right to it, and tells the client so:
    /// `N:?:{"code":403,"message":reason}`. Nothing is sent on the channel after that frame;
    /// every later command is answered with it again (``revocation``).
    func revoke(_ reason: String) {
        let first = delivery.withLock { delivery in
            guard delivery.revocation == nil else { return false }
            delivery.revocation = reason
            delivery.isClosed = true
            environment.outbox.enqueue(.text(SocketReply.error(channel: number, code: Self.revokedCode, message: reason)))
            return true
        }
        if first { close() }
    }

    /// Why the channel was revoked; `nil` while it holds.
    var revocation: String? { delivery.withLock { $0.revocation } }

    /// The code of the frame that tells a client its channel was revoked.
    static let revokedCode = 403

    /// Sends a reply to a request of the channel, unless the channel closed meanwhile (a page
    /// read before a revocation never follows it).
    func reply(_ text: ByteBuffer) {
        delivery.withLock { delivery in
            guard !delivery.isClosed else { return }
            environment.outbox.enqueue(.text(text))
        }
    }

    /// Called by the hub for each change to the bucket, synchronously: it only enqueues.
    private func receive(_ event: ChangeEvent) {
        let announcement = environment.encoding.announcement(of: event, channel: number, extensions: extensions)
        delivery.withLock { delivery in
            guard !delivery.isClosed, delivery.isStarted, let cursor = delivery.cursor else { return }
            guard delivery.isLive else {
                delivery.missedChanges = true
                return
            }
            if event.version.epoch == cursor.epoch && event.version.sequence <= cursor.sequence { return }
            if event.version.epoch == cursor.epoch && event.version.sequence == cursor.sequence + 1 {
                delivery.cursor = event.version
                environment.outbox.enqueue(.announcement(announcement))
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
                guard !delivery.isClosed, delivery.isStarted else {
                    delivery.catchUp = nil
                    return nil
                }
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
                if restart(from: cursor) { return }
                continue
            }

            let encoded = records.map { record in
                ChangeEvent(scope: scope, change: record, version: ChangeVersion(epoch: cursor.epoch, sequence: record.sequence))
                    .wireJSONBytes(extensions: extensions)
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

    /// The bucket has no version `cursor` the feed can follow (the client's `cv` is from
    /// elsewhere, the bucket was made anew, or history older than it was pruned): the client
    /// must index again, and the channel starts over with that walk.
    /// Returns whether the catch-up is over; `false` when a newer `cv:` moved the cursor
    /// meanwhile, which the catch-up must now follow.
    private func restart(from cursor: ChangeVersion) -> Bool {
        delivery.withLock { delivery in
            if !delivery.isClosed && delivery.cursor != cursor { return false }
            delivery.catchUp = nil
            guard !delivery.isClosed else { return true }
            environment.outbox.enqueue(.text(SocketReply.channel(number, "cv", "?")))
            delivery.cursor = nil
            delivery.isLive = false
            delivery.mustAnswer = false
            return true
        }
    }
}
