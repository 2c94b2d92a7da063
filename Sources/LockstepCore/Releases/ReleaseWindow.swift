/// One sealed showing in a window: where and when, and the item in a box only its release
/// key opens (see ``SealedItem``-style sealing described on ``ReleaseWindow``).
public struct SealedEntry: Sendable, Hashable {
    public var slot: Int
    /// Milliseconds since the Unix epoch, server time.
    public var start: Int64
    /// Exclusive.
    public var end: Int64
    /// AES-256-GCM `nonce ‖ ciphertext ‖ tag`.
    public var box: [UInt8]
    /// SHA-256(associated data ‖ box): the entry's commitment.
    public var digest: [UInt8]

    public init(slot: Int, start: Int64, end: Int64, box: [UInt8], digest: [UInt8]) {
        self.slot = slot
        self.start = start
        self.end = end
        self.box = box
        self.digest = digest
    }

    /// The chain position whose key opens this entry: the one released at its start.
    public var position: ChainPosition { ChainPosition(releasedAt: start) }

    func associatedData(store: String) -> [UInt8] {
        SealedItem.associatedData(store: store, slot: slot, start: start, end: end)
    }

    /// Opens the box with the chain key at ``position``: the item, or `nil` for an empty slot.
    public func open(store: String, chainKey: [UInt8]) throws(ReleaseVerificationError) -> ReleasedItem? {
        try SealedItem.open(box, chainKey: chainKey, slot: slot, associatedData: associatedData(store: store))
    }
}

/// What a store shows over the next ten minutes, sealed: the file every client fetches.
///
/// A window starts on a whole minute (server time) and covers ten minutes; a new one starts
/// every minute, so windows overlap and every node cuts them the same way. It is a pure
/// function of the configuration, the seed and its start: immutable, cacheable by any CDN,
/// byte-identical on every node. Its JSON (``json``) is written by ``JSONSerializer``:
///
/// ```json
/// {"anchors":[{"anchor":"<hex SHA-256(key[0])>","epoch":477000}],
///  "end":1717200600000,
///  "entries":[{"box":"<base64>","digest":"<hex>","end":1717200085000,"slot":0,"start":1717199950000}, …],
///  "epochMs":3600000,"format":"lockstep-releases-v1",
///  "released":[{"epoch":477000,"index":0,"key":"<hex>","store":"main","time":1717200000000}],
///  "slots":12,"start":1717200000000,"store":"main","tickMs":1000}
/// ```
///
/// - `entries`: every showing that overlaps the window, by slot then start; times are
///   milliseconds since the Unix epoch, server time, on whole seconds.
/// - `anchors`: the anchor of each epoch's chain that an entry starts in (``ReleaseKeyChain``).
/// - `released`: for each epoch of an entry that had started by the window's start, the latest
///   key released by then, so a client that just arrived opens those entries without asking.
/// - An entry is opened by the key at `epoch = ⌊start / epochMs⌋`,
///   `index = (start − epoch·epochMs) / tickMs`, derived from any later key of that epoch.
public struct ReleaseWindow: Sendable, Equatable {
    public static let format = "lockstep-releases-v1"
    /// Ten minutes.
    public static let lengthMilliseconds: Int64 = 600_000
    /// A new window every minute.
    public static let stepMilliseconds: Int64 = 60_000

    public var store: String
    public var slots: Int
    public var start: Int64
    public var end: Int64
    /// The anchor of each epoch's chain, by epoch.
    public var anchors: [Int64: [UInt8]]
    public var released: [ReleasedKey]
    public var entries: [SealedEntry]

    /// The start of the window in force at `time`: the whole minute at or before it.
    public static func start(containing time: Int64) -> Int64 {
        ChainPosition.floorDivide(time, stepMilliseconds) * stepMilliseconds
    }

    /// Builds the window that starts at `start` (a whole minute), taking each epoch's chain
    /// from `chain` so that callers can keep chains between windows.
    public init(schedule: StoreSchedule, start: Int64, chain: (Int64) -> ReleaseKeyChain) {
        precondition(start % Self.stepMilliseconds == 0, "windows start on whole minutes")
        let store = schedule.store.id
        self.store = store
        self.slots = schedule.store.slots
        self.start = start
        let end = start + Self.lengthMilliseconds
        self.end = end
        var chains: [Int64: ReleaseKeyChain] = [:]
        func chainOf(_ epoch: Int64) -> ReleaseKeyChain {
            if let known = chains[epoch] { return known }
            let made = chain(epoch)
            chains[epoch] = made
            return made
        }
        var startedEpochs: Set<Int64> = []
        entries = schedule.entries(from: start, to: end).map { entry in
            let position = ChainPosition(releasedAt: entry.start)
            if entry.start <= start { startedEpochs.insert(position.epoch) }
            let associatedData = SealedItem.associatedData(store: store, slot: entry.slot, start: entry.start, end: entry.end)
            let box = SealedItem.seal(
                entry.item, paddedTo: schedule.sealedLength, chainKey: chainOf(position.epoch).key(at: position.index),
                slot: entry.slot, associatedData: associatedData)
            return SealedEntry(
                slot: entry.slot, start: entry.start, end: entry.end, box: box,
                digest: SealedItem.digest(associatedData: associatedData, box: box))
        }
        let now = ChainPosition(releasedAt: start)
        released = startedEpochs.sorted().map { epoch in
            let position = epoch == now.epoch ? now : ChainPosition(epoch: epoch, index: ReleaseKeyChain.length - 1)
            return ReleasedKey(store: store, position: position, key: chainOf(epoch).key(at: position.index))
        }
        anchors = chains.mapValues(\.anchor)
    }

    public init(
        store: String, slots: Int, start: Int64, end: Int64, anchors: [Int64: [UInt8]], released: [ReleasedKey], entries: [SealedEntry]
    ) {
        self.store = store
        self.slots = slots
        self.start = start
        self.end = end
        self.anchors = anchors
        self.released = released
        self.entries = entries
    }

    /// Checks what a window can prove about itself: every entry's digest, every entry's epoch
    /// has an anchor, every released key lies on its anchor's chain and has come by the start.
    public func verify() throws(ReleaseVerificationError) {
        for entry in entries {
            guard (0..<slots).contains(entry.slot), entry.start < entry.end else {
                throw ReleaseVerificationError("window \(start) of \(store) has an entry out of place: slot \(entry.slot), \(entry.start)..<\(entry.end)")
            }
            guard SealedItem.digest(associatedData: entry.associatedData(store: store), box: entry.box) == entry.digest else {
                throw ReleaseVerificationError("the digest of slot \(entry.slot) at \(entry.start) does not match its box")
            }
            guard anchors[entry.position.epoch] != nil else {
                throw ReleaseVerificationError("window \(start) of \(store) has no anchor for epoch \(entry.position.epoch)")
            }
        }
        for key in released {
            guard key.store == store, key.time <= start, let anchor = anchors[key.position.epoch], key.verify(anchor: anchor) else {
                throw ReleaseVerificationError("the released key \(key.position) of window \(start) is not on its chain")
            }
        }
    }
}
