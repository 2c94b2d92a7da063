import LockstepCore

/// One change waiting for its store's writer: what a client sent, and the bucket it goes to.
public struct ChangeRequest: Sendable {
    public var scope: BucketScope
    public var change: IncomingChange
    public var author: ChangeAuthor
    /// Refuse the change (``ChangeRejection/Reason/duplicate``, with no original) when a live
    /// object is at its key: the caller reads what is there only when it is refused, and so,
    /// when the key is free, not at all (a purchase; see ``PurchaseRoutes``). A removed object
    /// does not count; the merge rules refuse to bring it back.
    public var onlyIfAbsent: Bool
    /// The change records a purchase (``PurchaseRoutes``): it is also a `purchase` webhook event.
    public var isPurchase: Bool
    /// For a restore (``HistoryService``), the version of the object whose data the change puts
    /// back (0: the object did not exist then, and the change removes it); history shows it.
    /// Its data comes from the object's own history, so the blobs it refers to were checked
    /// when they were first referred to, and are not checked against its author again.
    public var restoredFrom: Int?

    public init(
        scope: BucketScope, change: IncomingChange, author: ChangeAuthor = .trusted, onlyIfAbsent: Bool = false, isPurchase: Bool = false,
        restoredFrom: Int? = nil
    ) {
        self.scope = scope
        self.change = change
        self.author = author
        self.onlyIfAbsent = onlyIfAbsent
        self.isPurchase = isPurchase
        self.restoredFrom = restoredFrom
    }
}

/// What became of one change of a group.
public enum ChangeOutcome: Sendable {
    /// The change is durable, at this place in its bucket's feed.
    case committed(ChangeEvent)
    /// The change was refused, alone; the rest of its group is not affected.
    case rejected(ChangeRejection)
}

/// Changes that a store commits as one transaction and one flush to disk (group commit).
///
/// The changes are planned in order, each against the state the ones before it left (in the
/// store and earlier in the group), so the rules inside a group are exactly those of changes
/// committed one by one: per-object version order, a client change id applied once even when
/// it comes twice in one group, rebasing over what the group already changed.
public struct ChangeGroup: Sendable {
    public var requests: [ChangeRequest]
    /// The server time of the commit, in nanoseconds since the Unix epoch: kept with each
    /// change, so that history is pruned by age.
    public var time: Int64
    package var planner: ChangePlanner
    /// Asked before a change adds a reference to a blob; `nil` lets every reference through
    /// (stores' own tests and benchmarks, which hold no blobs).
    package var blobs: (any BlobReferenceChecking)?

    package init(requests: [ChangeRequest], time: Int64, limits: Limits, blobs: (any BlobReferenceChecking)?) {
        self.requests = requests
        self.time = time
        self.planner = ChangePlanner(limits: limits)
        self.blobs = blobs
    }

    public init(requests: [ChangeRequest], time: Int64, limits: Limits) {
        self.init(requests: requests, time: time, limits: limits, blobs: nil)
    }
}
