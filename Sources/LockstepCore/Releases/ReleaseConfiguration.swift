/// What a server sells on timers: its stores, the item catalog they draw from, and the rules
/// that change how often each item comes up.
///
/// Read it from a JSON file with ``ReleaseConfiguration/init(parsing:fileName:)``:
///
/// ```json
/// {
///   "stores": [
///     { "id": "main", "slots": 12, "shelfLife": { "min": 45, "max": 240 } },
///     { "id": "armory", "slots": 80, "sets": ["weapons"] }
///   ],
///   "items": [
///     { "id": "sword", "weight": 10, "sets": ["weapons"], "added": "2025-01-15", "data": { "price": 100 } },
///     { "id": "pumpkin", "weight": 2, "sets": ["halloween"] }
///   ],
///   "overrides": [
///     { "set": "halloween", "from": "2025-10-25", "until": "2025-11-01", "multiply": 20 },
///     { "newerThanDays": 7, "multiply": 3 }
///   ]
/// }
/// ```
public struct ReleaseConfiguration: Sendable, Equatable {
    public var stores: [StoreDefinition]
    public var items: [CatalogItem]
    /// Applied in order: each rule sees the weights the rules before it left.
    public var overrides: [WeightOverride]

    public init(stores: [StoreDefinition], items: [CatalogItem], overrides: [WeightOverride] = []) {
        self.stores = stores
        self.items = items
        self.overrides = overrides
    }

    public func store(_ id: String) -> StoreDefinition? {
        stores.first { $0.id == id }
    }

    /// The items a store draws from: those in one of its sets, or all of them.
    public func items(of store: StoreDefinition) -> [CatalogItem] {
        guard let sets = store.sets else { return items }
        return items.filter { item in item.sets.contains(where: sets.contains) }
    }
}

/// One store: a grid of slots, each showing one item at a time.
public struct StoreDefinition: Sendable, Equatable {
    /// The store's name in URLs and purchases: 1 to 256 of `a-z A-Z 0-9 . _ % @ -`.
    public var id: String
    /// How many slots the grid has, numbered from 0.
    public var slots: Int
    public var shelfLife: ShelfLife
    /// The sets of items this store sells; `nil` sells the whole catalog.
    public var sets: [String]?

    public init(id: String, slots: Int, shelfLife: ShelfLife = .standard, sets: [String]? = nil) {
        self.id = id
        self.slots = slots
        self.shelfLife = shelfLife
        self.sets = sets
    }
}

/// How long an item stays in its slot, in whole seconds.
///
/// Shelf lives come out of the range exactly (see ``SlotSchedule``), averaging its middle.
public struct ShelfLife: Sendable, Equatable {
    public var minimumSeconds: Int
    public var maximumSeconds: Int

    public init(minimumSeconds: Int, maximumSeconds: Int) {
        self.minimumSeconds = minimumSeconds
        self.maximumSeconds = maximumSeconds
    }

    /// 45 seconds to 4 minutes.
    public static let standard = ShelfLife(minimumSeconds: 45, maximumSeconds: 240)
    /// The longest shelf life a configuration may ask for: one day.
    public static let longestSeconds = 86_400
}

/// An item of the catalog.
public struct CatalogItem: Sendable, Equatable {
    /// The item's name in windows and purchases: 1 to 256 of `a-z A-Z 0-9 . _ % @ -`.
    public var id: String
    /// How often the item comes up relative to the others; 0 never.
    public var weight: Double
    public var sets: [String]
    /// When the item was added, in milliseconds since the Unix epoch, for age rules.
    public var added: Int64?
    /// What clients show: name, price, picture… Sealed with the item until its release.
    public var data: JSONObject

    public init(id: String, weight: Double = 1, sets: [String] = [], added: Int64? = nil, data: JSONObject = [:]) {
        self.id = id
        self.weight = weight
        self.sets = sets
        self.added = added
        self.data = data
    }
}

/// A rule that changes the weight of the items it selects while it applies.
///
/// Every selector given must match; a rule with none selects every item.
public struct WeightOverride: Sendable, Equatable {
    public enum Effect: Sendable, Equatable {
        /// Replace the weight.
        case weight(Double)
        /// Multiply the weight.
        case multiply(Double)
    }

    /// Only in these stores; `nil` in all.
    public var stores: [String]?
    /// Only these items; `nil` any.
    public var items: [String]?
    /// Only items in this set.
    public var set: String?
    /// Only for releases at or after this time (milliseconds since the Unix epoch).
    public var from: Int64?
    /// Only for releases before this time.
    public var until: Int64?
    /// Only items added less than this many days before the release.
    public var newerThanDays: Double?
    /// Only items added at least this many days before the release.
    public var olderThanDays: Double?
    public var effect: Effect

    public init(
        stores: [String]? = nil, items: [String]? = nil, set: String? = nil, from: Int64? = nil, until: Int64? = nil,
        newerThanDays: Double? = nil, olderThanDays: Double? = nil, effect: Effect
    ) {
        self.stores = stores
        self.items = items
        self.set = set
        self.from = from
        self.until = until
        self.newerThanDays = newerThanDays
        self.olderThanDays = olderThanDays
        self.effect = effect
    }

    /// Whether the rule applies to `item` in `store` for a release at `time` (ms).
    public func applies(to item: CatalogItem, in store: String, at time: Int64) -> Bool {
        if let stores, !stores.contains(store) { return false }
        if let items, !items.contains(item.id) { return false }
        if let set, !item.sets.contains(set) { return false }
        if let from, time < from { return false }
        if let until, time >= until { return false }
        if newerThanDays != nil || olderThanDays != nil {
            guard let added = item.added else { return false }
            let ageDays = Double(time - added) / 86_400_000
            if let newerThanDays, ageDays >= newerThanDays { return false }
            if let olderThanDays, ageDays < olderThanDays { return false }
        }
        return true
    }
}
