import LockstepCore
public import Logging

/// Applies changes to buckets by the merge rules and announces every accepted change: the
/// single path that HTTP writes, streaming writes and presence removals all take.
///
/// Changes go through the store's ``ChangeWriter``, which commits whatever is queued as one
/// group: a change is answered, and announced on the ``ChangeHub``, once it is durable.
public struct BucketService: Sendable {
    public let store: any SyncStore
    public let hub: ChangeHub
    let writer: ChangeWriter
    private let logger: Logger

    /// - Parameters:
    ///   - blobs: who may refer to which blob (``BlobService``; `nil`: no blob may be
    ///     referred to by a new reference, the server keeps none).
    ///   - spaces: asked, before a change to a space's bucket is announced, to enforce every
    ///     change to its members first (``SpaceService/catchUp(appID:spaceID:)``).
    public init(
        store: any SyncStore, hub: ChangeHub, limits: Limits, clock: ServerClockSource, blobs: BlobService?, spaces: SpaceService? = nil,
        logger: Logger
    ) {
        self.store = store
        self.hub = hub
        self.logger = logger
        let checker: any BlobReferenceChecking = blobs ?? NoBlobs()
        let announcer = ChangeAnnouncer(
            preparation: { events in
                guard let spaces else { return nil }
                var seen: Set<[String]> = []
                var spacesChanged: [[String]] = []
                for event in events {
                    guard case .space(let spaceID) = event.scope.owner, seen.insert([event.scope.appID, spaceID]).inserted else { continue }
                    spacesChanged.append([event.scope.appID, spaceID])
                }
                guard !spacesChanged.isEmpty else { return nil }
                return { [spacesChanged] in
                    for space in spacesChanged { await spaces.catchUp(appID: space[0], spaceID: space[1]) }
                }
            },
            announce: { event in hub.publish(event) },
            // One wakeup per event loop for the whole group's announcements.
            together: { body in DrainBatch.gathering(body) })
        self.writer = ChangeWriter(store: store, limits: limits, clock: clock, blobs: checker, announcer: announcer)
    }

    /// Applies one change by `author`, or throws the ``ChangeRejection`` that says why not;
    /// `onlyIfAbsent`: see ``ChangeRequest/onlyIfAbsent``; `isPurchase`: ``ChangeRequest/isPurchase``.
    @discardableResult
    public func apply(
        _ change: IncomingChange, to scope: BucketScope, by author: ChangeAuthor, onlyIfAbsent: Bool = false, isPurchase: Bool = false
    ) async throws -> ChangeEvent {
        try await withCheckedThrowingContinuation { answer in
            submit(change, to: scope, by: author, onlyIfAbsent: onlyIfAbsent, isPurchase: isPurchase) { answer.resume(with: $0) }
        }
    }

    /// Queues one change and returns at once; `completion` hears the event it became, or why
    /// it was refused, once its group is durable. Completions come in the order changes were
    /// submitted: a connection pipelines its changes through this.
    func submit(
        _ change: IncomingChange, to scope: BucketScope, by author: ChangeAuthor, onlyIfAbsent: Bool = false, isPurchase: Bool = false,
        then completion: @escaping @Sendable (Result<ChangeEvent, any Error>) -> Void
    ) {
        do {
            try Self.checkNames(of: change)
        } catch {
            return completion(.failure(error))
        }
        let logger = logger
        writer.enqueue(ChangeRequest(scope: scope, change: change, author: author, onlyIfAbsent: onlyIfAbsent, isPurchase: isPurchase)) { result in
            completion(result.flatMap { outcome in
                switch outcome {
                case .committed(let event):
                    LockstepMetrics.changesApplied.increment()
                    if event.change.mergedWithoutBase {
                        LockstepMetrics.changesMergedWithoutBase.increment()
                        logger.notice(
                            "change \(change.changeID) to \(scope)/\(change.key) was merged member by member: its base version \(change.sourceVersion ?? 0) is no longer retained")
                    }
                    return .success(event)
                case .rejected(let rejection):
                    LockstepMetrics.changesRejected.increment()
                    return .failure(rejection)
                }
            })
        }
    }

    /// Refuses a change whose object id or client change id the store cannot take, before it
    /// is queued (``submit(_:to:by:onlyIfAbsent:isPurchase:then:)`` checks again).
    static func checkNames(of change: IncomingChange) throws(ChangeRejection) {
        guard EntityName.isValid(change.key) else {
            throw ChangeRejection(.badRequest, "\"\(change.key)\" is not a valid object id: use 1 to 256 of a-z A-Z 0-9 . _ % @ -")
        }
        guard !change.changeID.isEmpty, change.changeID.utf8.count <= 256, !change.changeID.utf8.contains(0) else {
            throw ChangeRejection(.badRequest, "a change needs a ccid of 1 to 256 characters, none of them NUL")
        }
    }
}
