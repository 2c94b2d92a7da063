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
/// Two stages, each on a ``SerialThread`` of its own, overlap: one commits groups, the other
/// announces and answers the groups committed. A store that commits by blocking (SQLite) is
/// committed on the first thread; others (PostgreSQL) from a task that runs on that thread
/// (its executor preference), through their asynchronous commit.
///
/// A store whose commits may overlap (``SyncStore/concurrentCommits``) has its buckets shared
/// among that many lanes, each a writer of its own as above, on a thread of its own: one
/// lane's group is planned while another's is written. A bucket always falls in the same
/// lane, so its changes keep their order, their version checks and their change-id
/// deduplication exactly as with one writer. The lanes' groups may be announced at once, from
/// two threads: they concern different buckets, and the hub and the outboxes take that.
final class ChangeWriter: Sendable {
    private let store: any SyncStore
    private let limits: Limits
    private let clock: ServerClockSource
    private let blobs: any BlobReferenceChecking
    private let announcer: ChangeAnnouncer
    /// Where groups are committed, one thread for each lane: by blocking, for a store that can
    /// (SQLite); otherwise by a task that prefers its lane's thread, through the store's
    /// asynchronous ``SyncStore/commit(_:)``.
    private let committing: [SerialThread]
    /// The store, when it commits by blocking.
    private let blockingStore: (any BlockingCommitStore)?
    /// Where committed groups are announced and answered, in commit order.
    private let announcing = SerialThread(name: "lockstep-answer")
    private let state: Mutex<State>

    private struct State {
        /// Each lane's queue, and whether a task writes it.
        var queues: [Batch]
        /// Each lane's groups that commit together (``enqueueTogether(_:then:)``), each with
        /// how many of the lane's queued changes go before it.
        var together: [[(after: Int, batch: Batch)]]
        var isWriting: [Bool]
        /// Groups (and refusals) handed to the announcing thread and not yet answered.
        var announcementsLeft = 0

        init(lanes: Int) {
            queues = Array(repeating: Batch(), count: lanes)
            together = Array(repeating: [], count: lanes)
            isWriting = Array(repeating: false, count: lanes)
        }

        func hasQueued(_ lane: Int) -> Bool {
            !queues[lane].isEmpty || !together[lane].isEmpty
        }
    }

    /// Called with what became of a change, once its group is durable (or failed).
    typealias Completion = @Sendable (Result<ChangeOutcome, any Error>) -> Void

    /// Changes in the order they were queued, and who hears of each: two arrays, so that a
    /// group's requests go to the store as they are, not copied out one by one.
    private struct Batch: Sendable {
        var requests: [ChangeRequest] = []
        var completions: [Completion] = []
        /// Whether the batch commits as one group or not at all: never split, nor retried change by change.
        var isTogether = false

        var isEmpty: Bool { requests.isEmpty }
        var count: Int { requests.count }

        mutating func append(_ request: ChangeRequest, _ completion: @escaping Completion) {
            requests.append(request)
            completions.append(completion)
        }

        /// Each change as a batch of its own, in order.
        var singles: [Batch] {
            requests.indices.map { Batch(requests: [requests[$0]], completions: [completions[$0]]) }
        }

        /// The first `count` changes, taken out of the batch.
        mutating func takeFirst(_ count: Int) -> Batch {
            guard count < requests.count else {
                defer { self = Batch() }
                return self
            }
            defer {
                requests.removeFirst(count)
                completions.removeFirst(count)
            }
            return Batch(requests: Array(requests.prefix(count)), completions: Array(completions.prefix(count)))
        }
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
        blockingStore = store as? any BlockingCommitStore
        let lanes = blockingStore == nil ? max(1, store.concurrentCommits) : 1
        state = Mutex(State(lanes: lanes))
        committing = (0..<lanes).map { lane in SerialThread(name: lane == 0 ? "lockstep-commit" : "lockstep-lane-\(lane + 1)") }
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
    /// With more than one lane, that order holds for each bucket's changes: a connection's
    /// changes to two buckets in two lanes may be answered in either order.
    func enqueue(_ request: ChangeRequest, then completion: @escaping Completion) {
        let lane = state.withLock { state -> Int? in
            let lane = state.queues.count == 1 ? 0 : Self.lane(of: request.scope, among: state.queues.count)
            state.queues[lane].append(request, completion)
            defer { state.isWriting[lane] = true }
            return state.isWriting[lane] ? nil : lane
        }
        guard let lane else { return }
        startWriting(lane)
    }

    /// Queues changes to one bucket that commit together: after what is queued before them,
    /// as one group of their own however many they are (``Limits/maximumChangesPerCommit``
    /// does not split them), and if its transaction fails, every one of them fails with it.
    /// `completion` hears what became of each, in order, once the group is durable.
    func enqueueTogether(_ requests: [ChangeRequest], then completion: @escaping @Sendable (Result<[ChangeOutcome], any Error>) -> Void) {
        guard let scope = requests.first?.scope else { return completion(.success([])) }
        precondition(requests.allSatisfy { $0.scope == scope }, "changes that commit together go to one bucket, in one lane")
        let answers = TogetherAnswers(count: requests.count, completion)
        var batch = Batch(isTogether: true)
        for index in requests.indices {
            batch.append(requests[index]) { answers.answer(index, $0) }
        }
        let lane = state.withLock { state -> Int? in
            let lane = state.queues.count == 1 ? 0 : Self.lane(of: scope, among: state.queues.count)
            state.together[lane].append((after: state.queues[lane].count, batch: batch))
            defer { state.isWriting[lane] = true }
            return state.isWriting[lane] ? nil : lane
        }
        guard let lane else { return }
        startWriting(lane)
    }

    private func startWriting(_ lane: Int) {
        if let blockingStore {
            committing[0].start { self.writeWhileQueued(to: blockingStore) }
        } else {
            Task(executorPreference: committing[lane]) { await self.writeWhileQueued(lane: lane) }
        }
    }

    /// The lane a bucket's changes go through: always the same one, in every run (FNV-1a over
    /// the bucket's names, where `hashValue` would change with each process's seed).
    static func lane(of scope: BucketScope, among lanes: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        // Name by name, with no array of them made for each change.
        func add(_ name: String) {
            // Over the string's own bytes: stepping through its UTF-8 view costs several times
            // as much a byte.
            var name = name
            name.withUTF8 { bytes in
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            }
            hash = (hash ^ 0xff) &* 0x100_0000_01b3
        }
        add(scope.appID)
        add(scope.ownerKey)
        add(scope.bucket)
        return Int(hash % UInt64(lanes))
    }

    private func writeWhileQueued(lane: Int) async {
        while let group = nextGroup(lane: lane) {
            await write(group)
        }
    }

    private func writeWhileQueued(to store: any BlockingCommitStore) {
        while let group = nextGroup(lane: 0) {
            write(group, to: store)
        }
    }

    private func nextGroup(lane: Int) -> Batch? {
        state.withLock { state in
            guard state.hasQueued(lane) else {
                state.isWriting[lane] = false
                return nil
            }
            if let first = state.together[lane].first, first.after == 0 {
                state.together[lane].removeFirst()
                return first.batch
            }
            // Up to the next group that commits together, which the changes before it precede.
            let limit = min(max(1, limits.maximumChangesPerCommit), state.together[lane].first?.after ?? .max)
            let group = state.queues[lane].takeFirst(limit)
            for index in state.together[lane].indices { state.together[lane][index].after -= group.count }
            return group
        }
    }

    private func write(_ group: Batch) async {
        let outcomes: [ChangeOutcome]
        do {
            outcomes = try await store.commit(changeGroup(group))
        } catch {
            guard group.count > 1 && !group.isTogether else { return refuse(group.completions, error) }
            // The transaction failed as a whole (nothing of it is stored): commit each change
            // alone, so that whatever made it fail fails alone.
            LockstepMetrics.commitGroupsRetriedAlone.increment()
            for single in group.singles { await write(single) }
            return
        }
        await announce(group, outcomes)
    }

    /// ``write(_:)`` on the commit thread, which the store's commit blocks.
    private func write(_ group: Batch, to store: any BlockingCommitStore) {
        let outcomes: [ChangeOutcome]
        do {
            outcomes = try store.commitBlocking(changeGroup(group))
        } catch {
            guard group.count > 1 && !group.isTogether else { return refuse(group.completions, error) }
            LockstepMetrics.commitGroupsRetriedAlone.increment()
            for single in group.singles { write(single, to: store) }
            return
        }
        announceBlocking(group, outcomes)
    }

    /// Announces and answers a durable group: at once when nothing else waits, otherwise on the
    /// announcing thread, so that the two stages overlap and a busy writer commits the next group
    /// while this one is announced. Announcements keep commit order either way: a group is
    /// announced here only when no announcement is left on the thread.
    private func announce(_ group: Batch, _ outcomes: [ChangeOutcome]) async {
        let events = Self.committedEvents(outcomes)
        guard !handOff(group, outcomes, events) else { return }
        if let preparation = announcer.preparation(events) { await preparation() }
        finish(group, outcomes)
    }

    /// ``announce(_:_:)`` on the commit thread.
    private func announceBlocking(_ group: Batch, _ outcomes: [ChangeOutcome]) {
        let events = Self.committedEvents(outcomes)
        guard !handOff(group, outcomes, events) else { return }
        prepareBlocking(events)
        finish(group, outcomes)
    }

    /// Starts the group's announcement on the announcing thread, unless it can be made at once
    /// (no group waits to be committed and no announcement to be made): then returns `false`,
    /// and saves a light load a trip between threads for each change.
    private func handOff(_ group: Batch, _ outcomes: [ChangeOutcome], _ events: [ChangeEvent]) -> Bool {
        let handsOff = state.withLock { state in
            guard state.queues.indices.contains(where: { state.hasQueued($0) }) || state.announcementsLeft > 0 else { return false }
            state.announcementsLeft += 1
            return true
        }
        guard handsOff else { return false }
        announcing.start { [self] in
            prepareBlocking(events)
            finish(group, outcomes)
            state.withLock { $0.announcementsLeft -= 1 }
        }
        return true
    }

    /// Waits, on a thread of the writer's own, for what must be done before `events` are announced.
    private func prepareBlocking(_ events: [ChangeEvent]) {
        guard let preparation = announcer.preparation(events) else { return }
        let prepared = DispatchSemaphore(value: 0)
        Task {
            await preparation()
            prepared.signal()
        }
        prepared.wait()
    }

    /// Announces the group's changes and answers its refusals, in the group's order (so each
    /// connection hears of its changes in the order it sent them), then answers the rest.
    private func finish(_ group: Batch, _ outcomes: [ChangeOutcome]) {
        // By index: a pass over `zip(group, outcomes)` copies each request and outcome.
        announcer.together {
            for index in outcomes.indices {
                switch outcomes[index] {
                case .committed(let event): announcer.announce(event)
                case .rejected: group.completions[index](.success(outcomes[index]))
                }
            }
        }
        for index in outcomes.indices {
            if case .committed = outcomes[index] { group.completions[index](.success(outcomes[index])) }
        }
        LockstepMetrics.commitGroupSize.record(group.count)
    }

    /// Answers changes whose commit failed, in their place among the answers.
    private func refuse(_ completions: [Completion], _ error: any Error) {
        let handsOff = state.withLock { state in
            guard state.announcementsLeft > 0 else { return false }
            state.announcementsLeft += 1
            return true
        }
        guard handsOff else {
            for completion in completions { completion(.failure(error)) }
            return
        }
        announcing.start { [self] in
            for completion in completions { completion(.failure(error)) }
            state.withLock { $0.announcementsLeft -= 1 }
        }
    }

    private func changeGroup(_ group: Batch) -> ChangeGroup {
        ChangeGroup(requests: group.requests, time: clock.now(), limits: limits, blobs: blobs)
    }

    private static func committedEvents(_ outcomes: [ChangeOutcome]) -> [ChangeEvent] {
        outcomes.compactMap { outcome in
            if case .committed(let event) = outcome { event } else { nil }
        }
    }
}

/// The answers of changes that commit together, gathered for one completion.
private final class TogetherAnswers: Sendable {
    private let completion: @Sendable (Result<[ChangeOutcome], any Error>) -> Void
    private let state: Mutex<(outcomes: [ChangeOutcome?], left: Int, failed: Bool)>

    init(count: Int, _ completion: @escaping @Sendable (Result<[ChangeOutcome], any Error>) -> Void) {
        self.completion = completion
        state = Mutex((outcomes: Array(repeating: nil, count: count), left: count, failed: false))
    }

    /// Records the answer of the `index`-th change; the last one (or the first failure) answers all.
    func answer(_ index: Int, _ result: Result<ChangeOutcome, any Error>) {
        let finished = state.withLock { state -> Result<[ChangeOutcome], any Error>? in
            guard !state.failed else { return nil }
            switch result {
            case .failure(let error):
                state.failed = true
                return .failure(error)
            case .success(let outcome):
                state.outcomes[index] = outcome
                state.left -= 1
                return state.left == 0 ? .success(state.outcomes.compactMap { $0 }) : nil
            }
        }
        if let finished { completion(finished) }
    }
}
