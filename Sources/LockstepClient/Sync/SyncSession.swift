import Foundation
import Synchronization

/// Keeps a client's buckets in step with the server, in the background.
///
/// ```swift
/// await client.sync.start()                      // connect; reconnect whenever dropped
/// try await client.sync.waitUntilIdle()          // everything sent and acknowledged
/// await client.sync.stop()
/// ```
///
/// It speaks Simperium's streaming protocol over a WebSocket. When the socket cannot be
/// opened it syncs over HTTP instead (posting changes, long-polling the change feed) and keeps
/// trying the socket, with exponential backoff and full jitter. Local writes never wait for
/// any of this: they are in the local store and the outbox already.
///
/// Every ``LockstepClient`` has one, ``LockstepClient/sync``. Start it once, when the app
/// starts (or a user signs in); it syncs every bucket the client opens, now or later.
public final class SyncSession: Sendable {
    let context: SyncContext
    private let running = Mutex<Task<Void, Never>?>(nil)

    init(context: SyncContext) {
        self.context = context
    }

    /// What the session is doing now: stopped, connecting, streaming, polling, or stopped by
    /// a refused token.
    ///
    /// ```swift
    /// if case .unauthorized = client.sync.state { signIn() }
    /// ```
    public var state: SyncState { context.shared.withLock { $0.state } }

    /// Starts syncing every bucket this client has opened (now or in an earlier run) in the
    /// background. Does nothing when already started.
    ///
    /// Also keeps the client's ``LockstepClient/clock`` calibrated and runs the attachment
    /// upload queue. Errors never end the session: it reconnects with backoff, except when
    /// the server refuses the token (``SyncState/unauthorized(_:)``).
    public func start() async {
        let context = context
        running.withLock { running in
            guard running == nil else { return }
            running = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { try? await context.clock.run() }
                    group.addTask { await SyncLoop(context: context).run() }
                    group.addTask { await context.uploader.run() }
                    await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    /// Stops syncing and closes the connection. What was not sent stays in the outbox, and
    /// goes after the next ``start()``, in this run or a later one.
    public func stop() async {
        let task = running.withLock { running in
            defer { running = nil }
            return running
        }
        task?.cancel()
        await task?.value
        context.setState(.stopped)
    }

    /// Waits until every bucket has caught up with the server, the outbox is empty (changes
    /// the server refused do not count) and every attachment queued for upload is on the server
    /// (those whose upload failed for good do not count). Throws ``LockstepClientError/timedOut(_:)`` after
    /// `timeout`, and ``LockstepClientError/unauthorized(_:)`` if the server refuses the token.
    ///
    /// ```swift
    /// await client.sync.start()
    /// try await client.sync.waitUntilIdle(timeout: .seconds(30))   // before a script exits
    /// await client.close()
    /// ```
    ///
    /// Start the session first: a stopped session catches no bucket up, so the wait ends only
    /// at `timeout` (unless the client has no bucket and nothing to send).
    public func waitUntilIdle(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = context.progress.generation
            if case .unauthorized(let message) = state { throw LockstepClientError.unauthorized(message) }
            if try isIdle() { return }
            guard ContinuousClock.now < deadline else { throw LockstepClientError.timedOut("sync to become idle") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [context, seen] in _ = await context.progress.wait(after: seen) }
                group.addTask {
                    // Re-check now and then: an acknowledgement may land between check and wait.
                    try await Task.sleep(for: min(.milliseconds(250), deadline - .now))
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    private func isIdle() throws -> Bool {
        let buckets = try context.replica.bucketNames()
        let live = context.shared.withLock { $0.live }
        guard buckets.allSatisfy(live.contains) else { return false }
        return try context.replica.pendingCount() == 0
    }
}

/// Connects, reconnects and falls back to polling, until cancelled.
struct SyncLoop {
    let context: SyncContext

    func run() async {
        var attempt = 0
        while !Task.isCancelled {
            context.setState(.connecting)
            let generation = context.bucketsChanged.generation
            let buckets = (try? context.replica.bucketNames()) ?? []
            if buckets.isEmpty {
                // Nothing to sync yet. A socket with no channel would be closed by the server,
                // which gives a socket a few seconds to open one: wait for the first bucket.
                await context.bucketsChanged.wait(after: generation)
                continue
            }
            let connected = Locked(false)
            do {
                try await SocketSession(context: context, buckets: buckets) {
                    connected.withLock { $0 = true }
                    context.setState(.streaming)
                    // A reconnect may follow a sleep or a network change: measure the clock again.
                    Task { try? await context.clock.resync() }
                }.run()
            } catch _ where Task.isCancelled {
                // Stopped (``SyncSession/stop()``): however the socket's end shows, it is the
                // end asked for, not a failure to report.
                return
            } catch let error as LockstepClientError {
                if case .unauthorized(let message) = error { return context.setState(.unauthorized(message)) }
                context.logger.info("socket: \(error)")
            } catch is BucketsChanged {
                continue
            } catch {
                context.logger.info("socket: \(error)")
            }
            if Task.isCancelled { return }
            let delay = context.configuration.backoff.delay(attempt: attempt)
            if connected.withLock({ $0 }) {
                // The socket worked and dropped: come back soon over it.
                attempt = 0
                try? await Task.sleep(for: delay)
                continue
            }
            attempt += 1
            // The socket cannot be opened: sync over HTTP meanwhile, trying the socket again now
            // and then, and go back to it once it opens.
            context.setState(.polling)
            if case .unauthorized(let message) = await poll(buckets, tryingTheSocketEvery: max(delay, context.configuration.pollingWindow)) {
                return context.setState(.unauthorized(message))
            }
        }
    }

    /// Polls until the socket opens (tried every `window`) or polling fails; returns the
    /// session's end state if it must not go on.
    ///
    /// Polling runs on while the socket is tried: a session torn down every window would start
    /// over each time (catching up before it may send), and on a slow link or a busy device it
    /// could spend whole windows catching up and never send.
    private func poll(_ buckets: [String], tryingTheSocketEvery window: Duration) async -> SyncState? {
        let session = PollingSession(context: context, buckets: buckets)
        let deadline = ContinuousClock.now + window
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await session.run() }
                group.addTask { [context] in
                    repeat {
                        try await Task.sleep(for: window)
                    } while await !SocketSession.opens(context)
                }
                try await group.next()
                group.cancelAll()
            }
        } catch _ where Task.isCancelled {
            return nil
        } catch let error as LockstepClientError {
            if case .unauthorized(let message) = error { return .unauthorized(message) }
            context.logger.info("polling: \(error)")
        } catch is BucketsChanged {
            return nil
        } catch {
            context.logger.info("polling: \(error)")
        }
        // Failed early (the server is down too): wait out the window before the next attempt.
        if ContinuousClock.now < deadline { try? await Task.sleep(until: deadline) }
        return nil
    }
}
