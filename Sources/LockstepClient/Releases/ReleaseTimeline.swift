public import LockstepCore

/// A store's grid as this client sees it, tick by tick, on the server's clock.
///
/// The timeline fetches the current window at once, then again at a random moment 6 to 9
/// minutes into each window it holds (so that a crowd of clients spreads its refreshes); a
/// failed fetch is tried again every 5 seconds. Meanwhile it keeps showing what it holds: a
/// window covers ten minutes, so an outage of a few minutes goes unnoticed, and only when
/// everything held has run out do slots turn ``SlotState/Content/unknown``. Keys are fetched as
/// items start (one per epoch: the latest opens the rest) unless something pushes them first
/// through ``receive(_:)``. Every window and key is verified (see `ReleaseWindow.verify()`
/// and `ReleaseKeyChain` in `LockstepCore`) before it is used.
///
/// ```swift
/// let timeline = ReleaseTimeline(store: "main", time: serverClock, fetcher: HTTPReleaseFetcher(baseURL: url))
/// for await snapshot in timeline.snapshots() {
///     render(snapshot.slots)
/// }
/// ```
///
/// See <doc:ShowingATimedStore>.
public actor ReleaseTimeline {
    /// The earliest moment into a window at which it is replaced, in milliseconds (6 minutes).
    public static let refreshEarliest: Int64 = 6 * 60_000
    /// The latest moment into a window at which it is replaced, in milliseconds (9 minutes).
    public static let refreshLatest: Int64 = 9 * 60_000
    /// How soon a failed window fetch is tried again, in milliseconds (5 seconds).
    public static let retryInterval: Int64 = 5_000
    /// How soon a missing key is asked for again, in milliseconds (1 second).
    public static let keyRetryInterval: Int64 = 1_000

    /// The store's id, as the server's configuration names it.
    public nonisolated let store: String
    private let time: any ServerTimeSource
    private let fetcher: any ReleaseFetching
    private let jitter: @Sendable () -> Double
    private var ledger: ReleaseLedger
    private var nextRefresh: Int64 = .min
    private var windowFetch: Task<Void, Never>?
    private var keyFetches: [ChainPosition: Task<Void, Never>] = [:]
    private var keyRetryAt: [ChainPosition: Int64] = [:]
    /// The last thing that went wrong: a failed fetch or something that did not verify.
    public private(set) var lastError: (any Error)?

    /// A timeline of `store` that has fetched nothing yet: the first ``step()`` (or the first
    /// tick of ``snapshots(every:sleep:)``) at which `time` knows the server's time fetches
    /// the window in force.
    ///
    /// ```swift
    /// let timeline = ReleaseTimeline(store: "main", time: client.clock, fetcher: HTTPReleaseFetcher(baseURL: base))
    /// ```
    ///
    /// - Parameters:
    ///   - store: the store's id.
    ///   - time: the server's clock.
    ///   - fetcher: where windows and keys come from.
    ///   - refreshJitter: a number in `0..<1` for each refresh moment; random by default.
    public init(
        store: String, time: any ServerTimeSource, fetcher: any ReleaseFetching,
        refreshJitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.store = store
        self.time = time
        self.fetcher = fetcher
        self.jitter = refreshJitter
        self.ledger = ReleaseLedger(store: store)
    }

    /// The grid every `interval` until the stream is dropped, from the first tick at which the
    /// server's time is known. `sleep` waits between ticks; tests pass one that moves a
    /// simulated clock instead.
    ///
    /// ```swift
    /// for await snapshot in timeline.snapshots(every: .milliseconds(200)) { render(snapshot.slots) }
    /// ```
    ///
    /// The stream holds only the newest snapshot, so a slow consumer skips ticks instead of
    /// falling behind. Ending the loop (or cancelling its task) stops the ticks.
    public nonisolated func snapshots(
        every interval: Duration = .milliseconds(100),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) -> AsyncStream<ReleaseSnapshot> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let ticker = Task {
                while !Task.isCancelled {
                    if let snapshot = await self.step() { continuation.yield(snapshot) }
                    do { try await sleep(interval) } catch { break }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in ticker.cancel() }
        }
    }

    /// One tick: starts the fetches that are due (without waiting for them) and returns the
    /// grid at the server's time now; `nil`, doing nothing, while that time is not known.
    public func step() -> ReleaseSnapshot? {
        guard let now = nowMilliseconds else { return nil }
        if now >= nextRefresh && windowFetch == nil { startWindowFetch(at: now) }
        startDueKeyFetches(at: now)
        let (snapshot, problems) = ledger.snapshot(at: now)
        if let problem = problems.last { lastError = problem }
        return snapshot
    }

    /// The server's time now, in milliseconds.
    private var nowMilliseconds: Int64? {
        time.now().map { $0.nanosecondsSinceEpoch / 1_000_000 }
    }

    /// A key from elsewhere (the streaming socket's release push); kept if it verifies.
    ///
    /// ```swift
    /// // a socket frame "release:{…}"
    /// await timeline.receive(try ReleasedKey(json: try JSONValue(parsing: pushed)))
    /// ```
    ///
    /// Returns whether the key verified now: `false` for a key of another store, one that is
    /// not on its hour's chain, or one of an hour whose chain anchor no window held has
    /// brought yet (a few of those are set aside, and verified when a window brings it).
    @discardableResult
    public func receive(_ key: ReleasedKey) -> Bool {
        ledger.accept(key)
    }

    /// Waits until the fetches started so far have ended: for tests and tools that drive
    /// ``step()`` on a simulated clock.
    public func settle() async {
        while let task = windowFetch ?? keyFetches.values.first {
            await task.value
        }
    }

    private func startWindowFetch(at now: Int64) {
        let start = ReleaseWindow.start(containing: now)
        windowFetch = Task {
            let result: Result<ReleaseWindow, any Error>
            do { result = .success(try await fetcher.window(store: store, start: start)) } catch { result = .failure(error) }
            windowFetched(result, asked: now)
        }
    }

    private func windowFetched(_ result: Result<ReleaseWindow, any Error>, asked: Int64) {
        windowFetch = nil
        do {
            let window = try result.get()
            try ledger.merge(window)
            ledger.forget(before: asked - ReleaseWindow.stepMilliseconds)
            let spread = Double(Self.refreshLatest - Self.refreshEarliest)
            nextRefresh = window.start + Self.refreshEarliest + Int64((jitter() * spread).rounded(.down))
            // A first window often holds showings that started after it did: open them now.
            startDueKeyFetches(at: nowMilliseconds ?? asked)
        } catch {
            lastError = error
            nextRefresh = asked + Self.retryInterval
        }
    }

    /// Asks for the keys of showings that have started without one, unless already asking.
    private func startDueKeyFetches(at now: Int64) {
        let missing = ledger.missingKeys(at: now)
        keyRetryAt = keyRetryAt.filter { missing.contains($0.key) }
        for position in missing where keyFetches[position] == nil && (keyRetryAt[position] ?? .min) <= now {
            startKeyFetch(position)
        }
    }

    private func startKeyFetch(_ position: ChainPosition) {
        keyFetches[position] = Task {
            let result: Result<ReleasedKey?, any Error>
            do { result = .success(try await fetcher.key(store: store, time: position.releaseTime)) } catch { result = .failure(error) }
            keyFetched(result, position: position)
        }
    }

    private func keyFetched(_ result: Result<ReleasedKey?, any Error>, position: ChainPosition) {
        keyFetches[position] = nil
        // The fetch started once the key's time had come, so that time bounds "now" from below.
        let now = nowMilliseconds ?? position.releaseTime
        switch result {
        case .success(let key?):
            guard !ledger.accept(key) else { return }
            lastError = ReleaseVerificationError("the key \(key.position) of \(store) is not on its chain")
            keyRetryAt[position] = now + Self.keyRetryInterval
        case .success(nil):
            keyRetryAt[position] = now + Self.keyRetryInterval / 4
        case .failure(let error):
            lastError = error
            keyRetryAt[position] = now + Self.keyRetryInterval
        }
    }
}
