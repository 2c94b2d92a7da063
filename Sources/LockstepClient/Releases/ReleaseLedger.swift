import LockstepCore

/// What a client holds of a store: verified windows merged into one schedule, chain anchors,
/// the latest verified key of each epoch, and the items opened so far.
///
/// It accepts nothing it cannot check: a window whose entries' digests do not match, whose
/// anchors differ from ones seen before, or that changes an entry seen before is refused
/// whole; a key that does not hash to its epoch's anchor is dropped.
struct ReleaseLedger {
    let store: String
    private(set) var slots = 0
    private(set) var anchors: [Int64: [UInt8]] = [:]
    /// By slot, by start.
    private(set) var entries: [Int: [Int64: SealedEntry]] = [:]
    private(set) var coveredUntil: Int64?
    /// The latest verified key of each epoch.
    private(set) var keys: [Int64: ReleasedKey] = [:]
    /// Keys of epochs whose anchor has not arrived yet, kept until a window brings it.
    private var unverifiedKeys: [ReleasedKey] = []
    private var opened: [EntryID: SlotState.Content] = [:]

    struct EntryID: Hashable {
        var slot: Int
        var start: Int64
    }

    init(store: String) {
        self.store = store
    }

    /// Checks a window against itself and against everything held, then takes it in.
    mutating func merge(_ window: ReleaseWindow) throws(ReleaseVerificationError) {
        guard window.store == store else { throw ReleaseVerificationError("a window of \(window.store) came for \(store)") }
        try window.verify()
        for (epoch, anchor) in window.anchors where anchors[epoch].map({ $0 != anchor }) ?? false {
            throw ReleaseVerificationError("the anchor of epoch \(epoch) changed: the server rewrote the chain")
        }
        for entry in window.entries {
            if let held = entries[entry.slot]?[entry.start], held.digest != entry.digest || held.end != entry.end {
                throw ReleaseVerificationError("slot \(entry.slot) at \(entry.start) changed since an earlier window: the server swapped it")
            }
        }
        slots = window.slots
        anchors.merge(window.anchors) { held, _ in held }
        for entry in window.entries { entries[entry.slot, default: [:]][entry.start] = entry }
        coveredUntil = max(coveredUntil ?? window.end, window.end)
        for key in window.released { accept(key) }
        let waiting = unverifiedKeys
        unverifiedKeys = []
        for key in waiting { accept(key) }
    }

    /// Takes a key if it lies on its epoch's chain and is later than the one held.
    @discardableResult
    mutating func accept(_ key: ReleasedKey) -> Bool {
        guard key.store == store else { return false }
        guard let anchor = anchors[key.position.epoch] else {
            if unverifiedKeys.count < 16 { unverifiedKeys.append(key) }
            return false
        }
        guard key.verify(anchor: anchor) else { return false }
        if let held = keys[key.position.epoch], held.position >= key.position { return true }
        keys[key.position.epoch] = key
        return true
    }

    /// The chain key that opens entries starting at `position`, if a later one is held.
    func chainKey(at position: ChainPosition) -> [UInt8]? {
        keys[position.epoch]?.key(at: position)
    }

    /// Whether a key that opens `position` is held; cheaper than deriving it.
    func holdsKey(for position: ChainPosition) -> Bool {
        keys[position.epoch].map { $0.position >= position } ?? false
    }

    /// For each epoch, the latest position whose entry has started by `now` but whose key is
    /// missing: fetching it opens all the others.
    func missingKeys(at now: Int64) -> [ChainPosition] {
        var latest: [Int64: ChainPosition] = [:]
        for (_, byStart) in entries {
            for (start, entry) in byStart where start <= now && now < entry.end && !holdsKey(for: entry.position) {
                let position = entry.position
                if latest[position.epoch].map({ $0 < position }) ?? true { latest[position.epoch] = position }
            }
        }
        return latest.values.sorted()
    }

    /// Every slot at `now`, opening the items whose keys are held.
    mutating func snapshot(at now: Int64) -> (ReleaseSnapshot, [ReleaseVerificationError]) {
        var problems: [ReleaseVerificationError] = []
        var states: [SlotState] = []
        for slot in 0..<slots {
            guard let entry = entries[slot]?.values.first(where: { $0.start <= now && now < $0.end }) else {
                states.append(SlotState(slot: slot, content: .unknown, start: nil, end: nil, progress: 0, secondsLeft: 0))
                continue
            }
            let content: SlotState.Content
            if let known = opened[EntryID(slot: slot, start: entry.start)] {
                content = known
            } else if let chainKey = chainKey(at: entry.position) {
                do {
                    content = try entry.open(store: store, chainKey: chainKey).map(SlotState.Content.item) ?? .empty
                    opened[EntryID(slot: slot, start: entry.start)] = content
                } catch {
                    problems.append(error)
                    content = .sealed
                }
            } else {
                content = .sealed
            }
            let length = Double(entry.end - entry.start)
            states.append(SlotState(
                slot: slot, content: content, start: entry.start, end: entry.end,
                progress: min(1, max(0, Double(now - entry.start) / length)), secondsLeft: Double(entry.end - now) / 1000))
        }
        return (ReleaseSnapshot(store: store, time: now, slots: states, coveredUntil: coveredUntil), problems)
    }

    /// Drops what ended before `time`, so that a long-running client holds only what it needs.
    mutating func forget(before time: Int64) {
        for slot in entries.keys {
            entries[slot] = entries[slot]?.filter { $0.value.end > time }
        }
        opened = opened.filter { id, _ in entries[id.slot]?[id.start] != nil }
        let epoch = ChainPosition(releasedAt: time).epoch
        anchors = anchors.filter { $0.key >= epoch - 1 }
        keys = keys.filter { $0.key >= epoch - 1 }
    }
}
