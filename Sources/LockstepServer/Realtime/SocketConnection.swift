import Logging
import NIOCore
import Synchronization

/// One streaming client's WebSocket, from the upgrade to the close: it handles the client's
/// messages in order (``SocketDispatcher``), writes everything it sends through one bounded
/// ``SocketOutbox``, and watches that its peer keeps up.
///
/// No task runs for a connection that has nothing to handle. Its frames are read on the
/// socket's event loop (``SocketFrameReader``) into its ``SocketInbox``, and a task serves the
/// inbox only while messages wait. Everything else is on the event loop too: the outbox's
/// writes, the heartbeat's timer, the deadline for a first channel and token expiries, so a
/// busy cooperative pool makes no timer late. Changes announced on the ``ChangeHub`` reach the
/// outbox from whichever task published them.
final class SocketConnection: Sendable {
    let info: SocketConnectionInfo
    let services: LockstepServices
    let outbox: SocketOutbox
    let encoding: ChangeEncodingCache
    /// The client's changes waiting for their group commit.
    let pipeline: ChangePipeline
    let logger: Logger
    /// The messages read and not yet handled.
    let inbox: SocketInbox
    /// `nil` when ``Limits/heartbeatTimeoutSeconds`` is 0: nobody is taken for gone.
    let heartbeat: SocketHeartbeat?
    /// Who opened the socket: a native client, the server's own page, or a listed origin's
    /// page (``OriginPolicy``), which may present the admin token only if listed for it.
    let caller: OriginPolicy.Caller
    private let closer: Closer
    /// The connection's channels; only the task serving the inbox uses it.
    private let dispatcher: DispatcherBox
    /// Pushes key releases once the client asked with `release:`.
    private let releaseFeed = Mutex<Task<Void, Never>?>(nil)
    /// Whether a channel was opened with a valid token: until then the connection is on the
    /// clock of ``Limits/socketInitTimeoutSeconds``.
    private let authorized = Atomic<Bool>(false)
    /// Timers that end the connection when a token it holds expires, by expiry, cancelled when
    /// it ends.
    private let expiryTimers = Mutex<[Int64: Scheduled<Void>]>([:])
    /// The heartbeat's next check (``watchThePeer(_:due:)``), and whether the connection ended.
    private let peerWatch = Mutex<(next: Scheduled<Void>?, isEnded: Bool)>((nil, false))
    /// The deadline for a first channel.
    private let firstChannelDeadline = Mutex<Scheduled<Void>?>(nil)

    /// Made on the socket's event loop; `writer` is the handler at the head of its pipeline
    /// through which the outbox writes.
    init(
        info: SocketConnectionInfo, services: LockstepServices, encoding: ChangeEncodingCache, channel: any Channel,
        writer: SocketFrameWriter, caller: OriginPolicy.Caller, logger: Logger
    ) {
        var logger = logger
        logger[metadataKey: "lockstep.socket"] = .stringConvertible(info.id)
        let closer = Closer(channel: channel, clock: services.clock)
        let limit = services.limits.outgoingBufferBytes
        self.info = info
        self.caller = caller
        self.services = services
        self.encoding = encoding
        self.pipeline = ChangePipeline(limit: services.limits.maximumChangesInFlight)
        self.logger = logger
        self.closer = closer
        self.inbox = SocketInbox(limit: services.limits.incomingBufferBytes)
        self.dispatcher = DispatcherBox()
        let timeout = services.limits.heartbeatTimeoutSeconds
        self.heartbeat = timeout > 0 ? SocketHeartbeat(timeout: .nanoseconds(Int64(timeout * 1e9))) : nil
        self.outbox = SocketOutbox(
            channel: channel, writer: writer, limit: limit, pacer: services.drainPacers.pacer(for: channel.eventLoop),
            stamp: services.clock.now,
            onOverflow: { [logger] queued in
                guard closer.close(because: .slowReader) else { return }
                logger.warning("closing a slow reader: \(queued) bytes would wait to be sent, over the limit of \(limit)")
                LockstepMetrics.slowReadersClosed.increment()
            },
            // The peer is gone; the reader sees the socket close.
            onWriteFailure: { closer.close(because: .ended) })
        services.connections.setTerminator(info.id) { [logger] reason in
            guard closer.close(because: reason) else { return }
            logger.debug("closed a streaming connection: \(reason)")
        }
    }

    /// On the event loop, as the socket is upgraded: starts the heartbeat and the deadline for a
    /// first channel.
    func start(on pipeline: ChannelPipeline.SynchronousOperations) throws {
        logger.debug("streaming connection opened", metadata: ["lockstep.peer": .string(info.remoteAddress ?? "?")])
        dispatcher.value = SocketDispatcher(connection: self)
        awaitFirstChannel()
        if let heartbeat {
            try heartbeat.listen(on: pipeline)
            watchThePeer(heartbeat, due: .now() + .nanoseconds(Int64(heartbeat.checkEvery.nanoseconds)))
        }
    }

    /// On the event loop: a whole message arrived. Returns whether to read on; `false` when the
    /// inbox is full, until the task serving it makes room.
    func received(_ message: SocketInput) -> Bool {
        let admission = inbox.put(SocketInbox.Received(message: message, receivedAt: services.clock.now()))
        if admission.startServing { Task { await serveTheInbox() } }
        return !admission.isFull
    }

    /// On the event loop: the socket closed. The connection ends once the messages read before
    /// are handled.
    func socketEnded() {
        if inbox.finish() { Task { await serveTheInbox() } }
    }

    /// Handles the messages that wait, in order, and returns when none is left; the next
    /// message starts another serving task (``SocketInbox``).
    private func serveTheInbox() async {
        while true {
            switch inbox.take() {
            case .message(let received, let resumeReading):
                if resumeReading { _ = closer.channel.setOption(ChannelOptions.autoRead, value: true) }
                await dispatcher.value?.serve(received)
                heartbeat?.attended()
            case .idle:
                return
            case .finished:
                return await end()
            }
        }
    }

    /// Closes everything the connection holds and tells the registry.
    private func end() async {
        dispatcher.value?.closeChannels()
        dispatcher.value = nil
        releaseFeed.withLock { $0?.cancel() }
        for timer in expiryTimers.withLock({ $0.values }) { timer.cancel() }
        firstChannelDeadline.withLock { $0?.cancel() }
        peerWatch.withLock { watch in
            watch.isEnded = true
            watch.next?.cancel()
        }
        // Nothing more goes out: whoever waits for room (catch-ups) is released.
        outbox.close()
        // Its changes still in the writer are answered first: a creation answered after the
        // connection's end would be claimed for presence by a connection already gone.
        await pipeline.drained()
        let end = SocketConnectionEnd(
            connection: info, reason: closer.reason, peakQueuedBytes: outbox.peakBytes, serverClosedAt: closer.closedAt)
        logger.debug("streaming connection closed", metadata: ["lockstep.reason": "\(end.reason)"])
        services.connections.close(end)
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
    private func awaitFirstChannel() {
        let timeout = services.limits.socketInitTimeoutSeconds
        guard timeout > 0 else { return }
        let deadline = closer.channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout * 1e9))) { [self] in
            guard !authorized.load(ordering: .acquiring), closer.close(because: .noInit) else { return }
            logger.debug("closed a streaming connection that opened no channel within \(timeout) s")
        }
        firstChannelDeadline.withLock { $0 = deadline }
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
    ///
    /// The check runs on the socket's event loop every quarter of the timeout, and also at the
    /// moment the peer's silence would reach the timeout when that comes sooner: a silent peer
    /// is closed as its timeout passes, not up to a quarter of it later (the other holders of
    /// its presence objects are told that much sooner). When a check runs late, by over half a
    /// quarter, the loop was too busy to read either, so the lateness is not counted as the
    /// peer's silence (``SocketHeartbeat/forgive(_:now:)``).
    private func watchThePeer(_ heartbeat: SocketHeartbeat, due: NIODeadline) {
        let next = closer.channel.eventLoop.scheduleTask(deadline: due) { [self] in
            let now = NIODeadline.now()
            let late = Duration.nanoseconds((now - due).nanoseconds)
            if late > heartbeat.checkEvery / 2 { heartbeat.forgive(late) }
            guard peerKeepsUp(heartbeat) else { return }
            let tick = now + .nanoseconds(Int64(heartbeat.checkEvery.nanoseconds))
            watchThePeer(heartbeat, due: min(tick, heartbeat.silentPast))
        }
        peerWatch.withLock { watch in
            if watch.isEnded { return next.cancel() }
            watch.next = next
        }
    }

    /// Whether the peer still takes what is written and answers; when not, closes the connection.
    private func peerKeepsUp(_ heartbeat: SocketHeartbeat) -> Bool {
        // What the kernel has not taken counts as a stall only once it is known.
        outbox.confirm()
        if let stalled = outbox.stalledFor(), stalled > heartbeat.timeout {
            outbox.close()
            if closer.close(because: .slowReader) {
                logger.warning("closing a slow reader: no message got through for \(stalled)")
                LockstepMetrics.slowReadersClosed.increment()
            }
            return false
        }
        switch heartbeat.check() {
        case .alive:
            return true
        case .ping:
            outbox.enqueue(.ping)
            return true
        case .silent(let silence):
            outbox.close()
            if closer.close(because: .ended) { logger.debug("closing a peer silent for \(silence)") }
            return false
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

    /// The dispatcher, handed from one serving task to the next.
    ///
    /// Unchecked because its safety is the inbox's: one task serves at a time (``SocketInbox``
    /// says so under its lock), and the lock orders each serving task after the one before.
    private final class DispatcherBox: @unchecked Sendable {
        var value: SocketDispatcher?
    }
}
