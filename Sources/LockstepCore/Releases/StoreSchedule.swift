/// One showing of an item: a slot, the time it holds, and the item (`nil` when every weight
/// was zero at its start, so the slot stays empty).
public struct ScheduledEntry: Sendable, Equatable {
    public var slot: Int
    /// Milliseconds since the Unix epoch, server time; whole seconds.
    public var start: Int64
    /// The end, exclusive: the next entry's start.
    public var end: Int64
    public var item: CatalogItem?
    /// The change number of ``SlotSchedule`` that started it.
    public var number: Int64
}

/// A store's complete schedule: when every slot changes and what it shows, computed on demand
/// from the configuration and the seed, the same on every node.
public struct StoreSchedule: Sendable {
    public let store: StoreDefinition
    let items: [CatalogItem]
    let overrides: [WeightOverride]
    let random: ReleaseRandom
    let slots: SlotSchedule
    /// The length every sealed item is padded to, so that sizes say nothing of contents.
    let sealedLength: Int

    public init(configuration: ReleaseConfiguration, store: StoreDefinition, seed: ReleaseSeed) {
        self.store = store
        items = configuration.items(of: store)
        overrides = configuration.overrides.filter { $0.stores?.contains(store.id) ?? true }
        random = seed.random(store: store.id)
        slots = SlotSchedule(shelfLife: store.shelfLife, slots: store.slots, random: random)
        let longest = items.map { SealedItem.plaintext(of: $0).count }.max() ?? 0
        sealedLength = max(longest, SealedItem.plaintext(of: nil).count)
    }

    /// The entry `slot` shows at `time`.
    public func entry(slot: Int, at time: Int64) -> ScheduledEntry {
        entry(slot: slot, number: slots.changeNumber(slot: slot, at: time))
    }

    /// The entries of every slot that overlap `start..<end`, by slot then time.
    public func entries(from start: Int64, to end: Int64) -> [ScheduledEntry] {
        var entries: [ScheduledEntry] = []
        for slot in 0..<store.slots {
            var number = slots.changeNumber(slot: slot, at: start)
            var next = slots.change(number, slot: slot)
            while next < end {
                let entry = entry(slot: slot, number: number, start: next)
                entries.append(entry)
                number += 1
                next = entry.end
            }
        }
        return entries
    }

    /// The first moment after `time` at which some slot changes.
    public func nextChange(after time: Int64) -> Int64 {
        (0..<store.slots).map { slot in slots.change(slots.changeNumber(slot: slot, at: time) + 1, slot: slot) }.min() ?? time
    }

    private func entry(slot: Int, number: Int64, start: Int64? = nil) -> ScheduledEntry {
        let start = start ?? slots.change(number, slot: slot)
        return ScheduledEntry(
            slot: slot, start: start, end: slots.change(number + 1, slot: slot),
            item: pick(slot: slot, number: number, at: start), number: number)
    }

    /// A weighted draw over the catalog with the weights in force at `time`.
    ///
    /// Weights are turned into whole thousandths before drawing, so the draw is exact integer
    /// arithmetic and every platform picks the same item.
    func pick(slot: Int, number: Int64, at time: Int64) -> CatalogItem? {
        let weights = items.map { item in UInt64((weight(of: item, at: time) * 1000).rounded()) }
        let total = weights.reduce(0, +)
        guard total > 0 else { return nil }
        var draw = random.uniform(below: total, "pick|\(slot)|\(number)")
        for (item, weight) in zip(items, weights) {
            if draw < weight { return item }
            draw -= weight
        }
        return nil
    }

    /// An item's weight after the overrides in force at `time`, in order, at most
    /// ``ReleaseConfiguration/maximumWeight``.
    public func weight(of item: CatalogItem, at time: Int64) -> Double {
        var weight = min(item.weight, ReleaseConfiguration.maximumWeight)
        for rule in overrides where rule.applies(to: item, in: store.id, at: time) {
            switch rule.effect {
            case .weight(let value): weight = value
            case .multiply(let factor): weight *= factor
            }
            // Capped at every step so that long chains of multipliers stay finite.
            weight = min(weight, ReleaseConfiguration.maximumWeight)
        }
        return weight
    }
}
