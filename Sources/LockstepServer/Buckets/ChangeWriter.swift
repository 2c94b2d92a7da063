import Dispatch
import Synchronization

/// The store's one writer (group commit): changes from every connection and HTTP request
/// queue here, and whatever is queued when the previous commit ends goes to the store as one
/// ``ChangeGroup``: one transaction and one flush to disk, however many changes it holds.
///
/// So a flush, the disk's unit of cost, is shared by every change that waited for it, and
/// none is skipped: a change is answered, and its event published, only once its group is
/// durable. Under light load a group is one change and waits for nothing; under heavy load
/// groups grow to what arrived during one flush, up to ``Limits/maximumChangesPerCommit``.
///
/// A store that commits by blocking (SQLite) is written on a ``CommitThread``; others
/// (PostgreSQL) from a task, through their asynchronous commit.
final class ChangeWriter: Sendable {
    private let store: any SyncStore
    private let limits: Limits
    private let clock: ServerClockSource
    private let blobs: any BlobReferenceChecking
    private let announcer: ChangeAnnouncer
    /// Where groups are committed when the store can commit by blocking (SQLite); `nil`: in a
    /// task, through the store's asynchronous ``SyncStore/commit(_:)`` (PostgreSQL).
    private let blocking: (store: any BlockingCommitStore, thread: CommitThread)?
    private let state = Mutex(State())

    private struct State {
        var queue: [Pending] = []
        var isWriting = false
    }

    /// Called with what became of a change, once its group is durable (or failed).
    typealias Completion = @Sendable (Result<ChangeOutcome, any Error>) -> Void

    private struct Pending: Sendable {
        var request: ChangeRequest
        var completion: Completion
    }

    init(
        store: any SyncStore, limits: Limits, clock: ServerClockSource, blobs: any BlobReferenceChecking,
        announcer: ChangeAnnouncer
    ) {
        self.store = store
        self.limits = limits
        self.clock = clock
        self.blobs = blobs
        self.announcer = announcer
        blocking = (store as? any BlockingCommitStore).map { ($0, CommitThread()) }
    }

    /// Queues a change and returns what became of it once its group is durable.
    func submit(_ request: ChangeRequest) async throws -> ChangeOutcome {
        try await withCheckedThrowingContinuation { answer in
            enqueue(request) { answer.resume(with: $0) }
        }
    }

    /// Queues a change; `completion` hears what became of it once its group is durable.
    ///
    /// Changes are planned in the order they were queued, and completions are called in that
    /// order, so one connection's changes keep their order however they are grouped, and it
    /// can queue the next before the last is durable (a pipelined client shares flushes).
    func enqueue(_ request: ChangeRequest, then completion: @escaping Completion) {
        let startsWriting = state.withLock { state in
            state.queue.append(Pending(request: request, completion: completion))
            defer { state.isWriting = true }
            return !state.isWriting
        }
        guard startsWriting else { return }
        if let blocking {
            blocking.thread.start { self.writeWhileQueued(to: blocking.store) }
        } else {
            Task { await self.writeWhileQueued() }
        }
    }

    private func writeWhileQueued() async {
        while let group = nextGroup() {
            await write(group)
        }
    }

    private func writeWhileQueued(to store: any BlockingCommitStore) {
        while let group = nextGroup() {
            write(group, to: store)
        }
    }

    private func nextGroup() -> [Pending]? {
        state.withLock { state in
            guard !state.queue.isEmpty else {
                state.isWriting = false
                return nil
            }
            let group = Array(state.queue.prefix(max(1, limits.maximumChangesPerCommit)))
            state.queue.removeFirst(group.count)
            return group
        }
    }

    private func write(_ group: [Pending]) async {
        let outcomes: [ChangeOutcome]
        do {
            outcomes = try await store.commit(changeGroup(group))
        } catch {
            guard group.count > 1 else { return group[0].completion(.failure(error)) }
            // The transaction failed as a whole (nothing of it is stored): commit each change
            // alone, so that whatever made it fail fails alone.
            LockstepMetrics.commitGroupsRetriedAlone.increment()
            for pending in group { await write([pending]) }
            return
        }
        let events = Self.committedEvents(outcomes)
        if let preparation = announcer.preparation(events) { await preparation() }
        announcer.announce(events)
        answer(group, outcomes)
    }

    /// ``write(_:)`` on the ``CommitThread``, which the store's commit blocks.
    private func write(_ group: [Pending], to store: any BlockingCommitStore) {
        let outcomes: [ChangeOutcome]
        do {
            outcomes = try store.commitBlocking(changeGroup(group))
        } catch {
            guard group.count > 1 else { return group[0].completion(.failure(error)) }
            LockstepMetrics.commitGroupsRetriedAlone.increment()
            for pending in group { write([pending], to: store) }
            return
        }
        let events = Self.committedEvents(outcomes)
        if let preparation = announcer.preparation(events) {
            // The thread is this writer's own: it waits, as the task would have, and nothing
            // else is queued behind it but this writer's next group.
            let prepared = DispatchSemaphore(value: 0)
            Task {
                await preparation()
                prepared.signal()
            }
            prepared.wait()
        }
        announcer.announce(events)
        answer(group, outcomes)
    }

    private func changeGroup(_ group: [Pending]) -> ChangeGroup {
        ChangeGroup(requests: group.map(\.request), time: clock.now(), limits: limits, blobs: blobs)
    }

    private static func committedEvents(_ outcomes: [ChangeOutcome]) -> [ChangeEvent] {
        outcomes.compactMap { outcome in
            if case .committed(let event) = outcome { event } else { nil }
        }
    }

    private func answer(_ group: [Pending], _ outcomes: [ChangeOutcome]) {
        for (pending, outcome) in zip(group, outcomes) { pending.completion(.success(outcome)) }
        LockstepMetrics.commitGroupSize.record(group.count)
    }
}
