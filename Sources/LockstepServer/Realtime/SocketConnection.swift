import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

/// One streaming client's WebSocket, from the upgrade to the close: it reads the client's
/// messages in order (``SocketDispatcher``), writes everything it sends through one bounded
/// ``SocketOutbox``, and watches that its peer keeps up.
///
/// Three tasks run per connection: the reader (the WebSocket handler's own task), one waiting
/// for the outbox to end, and a watchdog for writes the peer never takes. Changes announced on
/// the ``ChangeHub`` reach the outbox from whichever task published them, and the outbox writes
/// them on the socket's event loop.
final class SocketConnection: Sendable {
    let info: SocketConnectionInfo
    let services: LockstepServices
    let outbox: SocketOutbox
    let encoding: ChangeEncodingCache
    /// The client's changes waiting for their group commit.
    let pipeline: ChangePipeline
    let logger: Logger
    /// `nil` when ``Limits/heartbeatTimeoutSeconds`` is 0: nobody is taken for gone.
    let heartbeat: SocketHeartbeat?
    private let closer: Closer
    /// Pushes key releases once the client asked with `release:`.
    private let releaseFeed = Mutex<Task<Void, Never>?>(nil)
    /// Whether a channel was opened with a valid token: until then the connection is on the
    /// clock of ``Limits/socketInitTimeoutSeconds``.
    private let authorized = Atomic<Bool>(false)
    /// Timers that end the connection when a token it holds expires, by expiry, cancelled when
    /// it ends.
    private let expiryTimers = Mutex<[Int64: Scheduled<Void>]>([:])

    init(info: SocketConnectionInfo, services: LockstepServices, encoding: ChangeEncodingCache, channel: any Channel, logger: Logger) {
        var logger = logger
        logger[metadataKey: "lockstep.socket"] = .stringConvertible(info.id)
        let closer = Closer(channel: channel, clock: services.clock)
        let limit = services.limits.outgoingBufferBytes
        self.info = info
        self.services = services
        self.encoding = encoding
        self.pipeline = ChangePipeline(limit: services.limits.maximumChangesInFlight)
        self.logger = logger
        self.closer = closer
        let timeout = services.limits.heartbeatTimeoutSeconds
        self.heartbeat = timeout > 0 ? SocketHeartbeat(timeout: .nanoseconds(Int64(timeout * 1e9))) : nil
        self.outbox = SocketOutbox(channel: channel, limit: limit, stamp: services.clock.now) { [logger] queued in
            guard closer.close(because: .slowReader) else { return }
            logger.warning("closing a slow reader: \(queued) bytes would wait to be sent, over the limit of \(limit)")
            LockstepMetrics.slowReadersClosed.increment()
        }
        services.connections.setTerminator(info.id) { [logger] reason in
            guard closer.close(because: reason) else { return }
            logger.debug("closed a streaming connection: \(reason)")
        }
    }

    /// Serves the connection until it ends, then tells the registry.
    func run(inbound: WebSocketInboundStream) async throws {
        logger.debug("streaming connection opened", metadata: ["lockstep.peer": .string(info.remoteAddress ?? "?")])
        var dispatcher = SocketDispatcher(connection: self)
        var failure: (any Error)?
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                do {
                    try await outbox.run()
                } catch {
                    // The peer is gone; the reader sees the socket close.
                    closer.close(because: .ended)
                }
                // Nothing more goes out: release whoever waits for room (the reader, catch-ups).
                outbox.close()
            }
            group.addTask { [self] in await watchThePeer() }
            group.addTask { [self] in await awaitFirstChannel() }
            do {
                try await dispatcher.read(inbound)
            } catch {
                failure = error
            }
            dispatcher.closeChannels()
            releaseFeed.withLock { $0?.cancel() }
            for timer in expiryTimers.withLock({ $0.values }) { timer.cancel() }
            outbox.close()
            group.cancelAll()
        }
        let end = SocketConnectionEnd(
            connection: info, reason: closer.reason, peakQueuedBytes: outbox.peakBytes, serverClosedAt: closer.closedAt)
        logger.debug("streaming connection closed", metadata: ["lockstep.reason": "\(end.reason)"])
        services.connections.close(end)
        if let failure { throw failure }
    }

    /// A channel was opened with `identity`: the connection may stay, for as long as the
    /// identity's token holds (``TokenWatch``).
    func channelAuthorized(_ identity: AccountService.Identity) {
        authorized.store(true, ordering: .releasing)
        guard let token = identity.token else { return }
        services.connections.confirmToken(token, on: info.id)
        if let expiresAt = token.expiresAt { closeWhenExpired(at: expiresAt) }
    }

    /// Ends the connection at `expiresAt` (server time) if it still holds a token expired by
    /// then. The timer runs on the socket's event loop, so a busy cooperative pool does not
    /// make it late; ``TokenWatch``'s poll stays the backstop.
    private func closeWhenExpired(at expiresAt: Int64) {
        let clock = services.clock
        let connections = services.connections
        let id = info.id
        let eventLoop = closer.channel.eventLoop
        expiryTimers.withLock { timers in
            guard timers[expiresAt] == nil else { return }
            // A millisecond past, so that the server clock reads the token as expired when it fires.
            let delay = TimeAmount.nanoseconds(max(0, expiresAt - clock.now()) + 1_000_000)
            timers[expiresAt] = eventLoop.scheduleTask(in: delay) {
                connections.closeConnection(id, ifHoldingATokenExpiredAt: clock.now())
            }
        }
    }

    /// Closes the connection if no channel was opened with a valid token in time.
    private func awaitFirstChannel() async {
        let timeout = services.limits.socketInitTimeoutSeconds
        guard timeout > 0 else { return }
        do { try await Task.sleep(for: .nanoseconds(Int64(timeout * 1e9))) } catch { return }
        guard !authorized.load(ordering: .acquiring), closer.close(because: .noInit) else { return }
        logger.debug("closed a streaming connection that opened no channel within \(timeout) s")
    }

    /// Sends every key release from now on as `release:{…}`; asking again changes nothing.
    func followReleases(of hub: KeyReleaseHub) {
        releaseFeed.withLock { feed in
            guard feed == nil else { return }
            let releases = hub.releases()
            feed = Task { [outbox] in
                for await key in releases {
                    _ = outbox.enqueue(.text(ByteBuffer(string: "release:\(key.json)")))
                }
            }
        }
    }

    /// Ends the connection from the server's side because it cannot go on.
    func fail(_ problem: String) {
        outbox.close()
        guard closer.close(because: .ended) else { return }
        logger.error("closing a streaming connection: \(problem)")
    }

    /// Pings a peer that went quiet and closes the connection when it stays silent for the
    /// heartbeat timeout (``SocketHeartbeat``), or when it has not taken a single message for
    /// that long: pings cannot catch the latter, since they queue behind the stalled write.
    private func watchThePeer() async {
        guard let heartbeat else { return }
        do { try await heartbeat.listen(to: closer.channel) } catch { return }
        let tick = heartbeat.timeout / 4
        while !Task.isCancelled {
            let due = ContinuousClock.now + tick
            do { try await Task.sleep(until: due) } catch { return }
            let late = ContinuousClock.now - due
            if late > tick / 2 { heartbeat.forgive(late) }
            if let stalled = outbox.stalledFor(), stalled > heartbeat.timeout {
                outbox.close()
                if closer.close(because: .slowReader) {
                    logger.warning("closing a slow reader: no message got through for \(stalled)")
                    LockstepMetrics.slowReadersClosed.increment()
                }
                return
            }
            switch heartbeat.check() {
            case .alive:
                continue
            case .ping:
                outbox.enqueue(.ping)
            case .silent(let silence):
                outbox.close()
                if closer.close(because: .ended) { logger.debug("closing a peer silent for \(silence)") }
                return
            }
        }
    }

    /// Closes the socket at once, the first time only, and remembers why.
    ///
    /// An abrupt close is the only kind that works on a peer that does not read: a close
    /// frame would queue behind everything it did not take.
    final class Closer: Sendable {
        let channel: any Channel
        private let clock: ServerClockSource
        private let closed = Mutex<(reason: SocketCloseReason, at: Int64)?>(nil)

        init(channel: any Channel, clock: ServerClockSource) {
            self.channel = channel
            self.clock = clock
        }

        /// Closes the socket; `false` when it was closed already.
        @discardableResult
        func close(because reason: SocketCloseReason) -> Bool {
            let now = clock.now()
            let first = closed.withLock { closed in
                guard closed == nil else { return false }
                closed = (reason, now)
                return true
            }
            if first { channel.close(mode: .all, promise: nil) }
            return first
        }

        var reason: SocketCloseReason {
            closed.withLock { $0?.reason } ?? .ended
        }

        /// When this side closed the socket, if it did.
        var closedAt: Int64? {
            closed.withLock { $0?.at }
        }
    }
}
