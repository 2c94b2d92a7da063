import LockstepCore
public import LockstepServer
public import Logging
import PostgresNIO
public import ServiceLifecycle
import Synchronization

/// Carries changes between the server nodes that share one PostgreSQL database, so that a
/// change written on one node wakes the long polls (and streams) waiting on every other.
///
/// Each commit of a ``PostgresStore`` sends a small `NOTIFY` from inside its transaction (see
/// ``ChangeNotification``), one per app, naming the run of the app's commit order it took. The
/// relay keeps one connection of its own that `LISTEN`s; for each notification from another node
/// it loads the changes (one by its bucket, a run by its positions) and hands them to the node's
/// hub with ``ChangeHub/deliverLocally(_:)``. Changes made on this node are not relayed: the hub
/// already announced them.
///
/// Nothing is lost when the listening connection drops. PostgreSQL delivers notifications in
/// commit order, and every commit of an app takes the next number of the app's sequence, so
/// the relay knows the last position it followed in each app (``AppCursors``). When it
/// listens again, it first reads, from the database, every change other nodes committed after
/// those positions, and announces them in commit order; a hole in the numbers while
/// connected (which PostgreSQL should never cause) is filled the same way. A heartbeat query
/// finds a connection that died without a word. The one window left is at start: changes
/// committed before the relay first listens are not announced (a waiting long poll still
/// returns them when it reads the feed at the end of its wait).
///
/// Revocations of spaces come on the same channel (``SpaceNotification``): the relay hands
/// them to `revokeSpace`, which ends the member's channels on this node. Those missed while
/// the connection was down are not read back: when it listens again, `recheckSpaces` checks
/// every channel open on this node against the database instead.
///
/// Run it beside the HTTP server, as a service, for as long as the node serves:
///
/// ```swift
/// let relay = PostgresChangeRelay(store: store, hub: services.hub, logger: logger)
/// let group = ServiceGroup(services: [relay, app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
public final class PostgresChangeRelay: Service {
    public let store: PostgresStore
    public let hub: ChangeHub
    private let reconnectDelay: Duration
    private let heartbeatInterval: Duration
    private let heartbeatTimeout: Duration
    private let logger: Logger
    private let progress = Mutex(Progress())
    /// Enforces on this node what another node's change to a space's members took away.
    private let revokeSpace: @Sendable (SpaceRevocation) -> Void
    /// Checks this node's channels on spaces against the database, after a reconnection.
    private let recheckSpaces: @Sendable () async throws -> Void

    /// How many changes a catch-up reads per query.
    private static let catchUpBatch = 500

    private struct Progress {
        var generation = 0
        var nextWaiter = 0
        var waiters: [Int: (generation: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
    }

    /// - Parameters:
    ///   - reconnectDelay: The first wait before listening again after the connection drops;
    ///     it doubles with each failed attempt, up to 30 seconds.
    ///   - heartbeatInterval: How often the listening connection is asked to answer.
    ///   - heartbeatTimeout: How long it has to answer before it is dropped and opened again.
    ///   - revokeSpace: Told of every revocation another node committed (``SpaceNotification``):
    ///     pass ``SpaceService/enforce(_:)``.
    ///   - recheckSpaces: Run each time the relay listens again, since revocations announced
    ///     while it was away are not read back: pass ``SpaceService/recheckOpenChannels()``.
    public init(
        store: PostgresStore, hub: ChangeHub, reconnectDelay: Duration = .milliseconds(250),
        heartbeatInterval: Duration = .seconds(10), heartbeatTimeout: Duration = .seconds(10), logger: Logger,
        revokeSpace: @escaping @Sendable (SpaceRevocation) -> Void = { _ in },
        recheckSpaces: @escaping @Sendable () async throws -> Void = {}
    ) {
        self.revokeSpace = revokeSpace
        self.recheckSpaces = recheckSpaces
        self.store = store
        self.hub = hub
        self.reconnectDelay = reconnectDelay
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatTimeout = heartbeatTimeout
        self.logger = logger
    }

    /// Listens until cancelled or until a graceful shutdown, opening the connection again whenever it drops.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.follow() }
    }

    /// How many times the relay has started listening (1 after the first connection, 2 after
    /// the first reconnection, …), each time having caught up on what it missed.
    public var generation: Int {
        progress.withLock { $0.generation }
    }

    /// Returns once ``generation`` reaches `generation`, or when the calling task is cancelled.
    public func waitUntilListening(generation: Int = 1) async {
        let id = progress.withLock { progress in
            progress.nextWaiter += 1
            return progress.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = progress.withLock { progress in
                    if progress.generation >= generation || Task.isCancelled { return true }
                    progress.waiters[id] = (generation, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            progress.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    // MARK: Listening

    private func follow() async {
        var cursors = AppCursors()
        var following = false
        var delay = reconnectDelay
        while !Task.isCancelled {
            let before = generation
            do {
                try await listen(&cursors, following: &following)
            } catch {
                if Task.isCancelled { break }
                logger.warning("change relay: lost the PostgreSQL connection: \(PostgresStore.describe(error))")
            }
            if Task.isCancelled { break }
            delay = generation > before ? reconnectDelay : min(delay * 2, .seconds(30))
            logger.info("change relay: listening again in \(delay)")
            guard (try? await Task.sleep(for: delay)) != nil else { break }
        }
    }

    /// One connection's life: listen, catch up, then follow notifications until it ends.
    private func listen(_ cursors: inout AppCursors, following: inout Bool) async throws {
        let connection = try await PostgresConnection.connect(
            configuration: try store.configuration.connectionConfiguration(application: "lockstep relay \(store.nodeID)"),
            id: generation + 1, logger: logger)
        do {
            // Cancelled (the server stops): close the connection, which ends the notification
            // stream and any query in flight, so the relay never outlives its task.
            try await withTaskCancellationHandler {
                try await connection.listen(on: store.configuration.notificationChannel) { notifications in
                    // Listening now: every later commit will be notified. Read what came before.
                    try await catchUpOnEveryApp(&cursors, announcing: following)
                    // Revocations missed while away: the channels open here are checked instead.
                    if following { try await recheckSpaces() }
                    following = true
                    startedListening()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { await self.heartbeat(connection) }
                        for try await notification in notifications {
                            // Parsed once, for both kinds: a node reads every notification of its own too.
                            let json = try? JSONValue(parsing: notification.payload)
                            if let space = json.flatMap(SpaceNotification.init(json:)) {
                                if space.node != store.nodeID { revokeSpace(space.revocation) }
                                continue
                            }
                            guard let note = json.flatMap(ChangeNotification.init(json:)) else {
                                logger.warning("change relay: ignored a notification that no Lockstep node sent")
                                continue
                            }
                            try await handle(note, &cursors)
                        }
                        group.cancelAll()
                    }
                }
            } onCancel: {
                connection.close().whenComplete { _ in }
            }
        } catch {
            await close(connection)
            throw error
        }
        await close(connection)
    }

    /// Closes the listening connection, waiting at most a heartbeat timeout for it to go.
    private func close(_ connection: PostgresConnection) async {
        _ = await unawaited(within: heartbeatTimeout) { try? await connection.close() }
    }

    private func startedListening() {
        let ready = progress.withLock { progress in
            progress.generation += 1
            let generation = progress.generation
            let due = progress.waiters.filter { $0.value.generation <= generation }
            for id in due.keys { progress.waiters[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
        logger.debug("change relay: listening (generation \(generation))")
    }

    /// Asks the connection to answer now and then; closes it when it does not, which ends the
    /// notification stream and so makes the relay connect again.
    ///
    /// The query is never awaited past the timeout or the relay's cancellation (see
    /// ``unawaited(within:_:)``): a heartbeat sent just as the connection closes may never be
    /// answered, and must not hold the relay.
    private func heartbeat(_ connection: PostgresConnection) async {
        let logger = logger
        while (try? await Task.sleep(for: heartbeatInterval)) != nil {
            let answered = await unawaited(within: heartbeatTimeout) {
                (try? await connection.query("SELECT 1", logger: logger)) != nil
            }
            guard answered == true else {
                if !Task.isCancelled { logger.warning("change relay: PostgreSQL did not answer the heartbeat; connecting again") }
                connection.close().whenComplete { _ in }
                return
            }
        }
    }

    // MARK: Relaying

    private func handle(_ note: ChangeNotification, _ cursors: inout AppCursors) async throws {
        let fromThisNode = note.node == store.nodeID
        guard note.appSequences.upperBound > 0 else {
            // The app has no row, so its commits have no order to follow: pass on what is announced.
            if !fromThisNode, let change = note.change { try await deliver(change) }
            return
        }
        let app = note.appID
        switch cursors.step(app, at: note.appSequences) {
        case .passed:
            return
        case .next where fromThisNode:
            break
        case .next:
            if let change = note.change {
                try await deliver(change)
                hub.committed(appID: app, bucket: change.scope.bucket)
            } else {
                try await catchUp(app, after: cursors.position(of: app), through: note.appSequences.upperBound, &cursors)
            }
        case .gap(let after):
            logger.warning("change relay: notifications \(after + 1)..<\(note.appSequences.lowerBound) of app \(app) went missing; reading them")
            try await catchUp(app, after: after, through: note.appSequences.upperBound, &cursors)
        }
        cursors.pass(app, through: note.appSequences.upperBound)
    }

    private func deliver(_ change: ChangeNotification.Change) async throws {
        guard hub.subscriberCount(change.scope) > 0 else { return }
        if let event = try await store.relayedChange(change.scope, sequence: change.sequence) {
            hub.deliverLocally(event)
        }
    }

    private func catchUpOnEveryApp(_ cursors: inout AppCursors, announcing: Bool) async throws {
        for (app, latest) in try await store.appPositions() where latest > cursors.position(of: app) {
            if announcing {
                try await catchUp(app, after: cursors.position(of: app), through: latest, &cursors)
            }
            cursors.pass(app, through: latest)
        }
    }

    /// Announces the changes other nodes committed to `app` after `after` through `through`, in commit order.
    private func catchUp(_ app: String, after: Int64, through: Int64, _ cursors: inout AppCursors) async throws {
        var position = after
        var announced = 0
        while position < through {
            let batch = try await store.changesFromOtherNodes(appID: app, after: position, through: through, limit: Self.catchUpBatch)
            for relayed in batch {
                hub.deliverLocally(relayed.event)
                hub.committed(appID: app, bucket: relayed.event.scope.bucket)
            }
            announced += batch.count
            guard batch.count == Self.catchUpBatch, let last = batch.last else { break }
            position = last.appSequence
            cursors.pass(app, through: position)
        }
        if announced > 0 { logger.debug("change relay: caught up on \(announced) changes of app \(app)") }
    }
}
