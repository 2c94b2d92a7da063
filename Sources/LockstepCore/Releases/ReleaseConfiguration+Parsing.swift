extension ReleaseConfiguration {
    /// The most slots a store may have.
    public static let maximumSlots = 1000
    /// The most bytes an item's sealed form (`{"data":…,"item":…}`) may take.
    public static let maximumItemBytes = 16 * 1024
    /// The largest weight or multiplier a file may give.
    public static let maximumWeight = 1e9

    /// Reads a configuration file, refusing anything unclear with an error that names the file,
    /// the line and the field: `store.json:12: stores[0].slots: must be a whole number between 1 and 1000`.
    public init(parsing bytes: some Collection<UInt8>, fileName: String) throws(ReleaseConfigurationError) {
        let located: LocatedJSON
        do {
            located = try JSONParser().parseLocated(bytes)
        } catch {
            throw ReleaseConfigurationError(fileName: fileName, line: error.line, path: nil, message: "column \(error.column): \(error.message)")
        }
        let document = ConfigDocument(fileName: fileName, located: located)
        let root = try document.fields(located.value, at: JSONPath())
        try root.requireOnly(["stores", "items", "overrides"])

        guard let itemValues = try root.array("items"), !itemValues.isEmpty else { throw root.error("items", "must list at least one item") }
        var items: [CatalogItem] = []
        var itemIDs: Set<String> = []
        for (value, path) in itemValues {
            let item = try Self.item(try document.fields(value, at: path))
            guard itemIDs.insert(item.id).inserted else { throw document.error(path / "id", "the item \(item.id) is listed twice") }
            items.append(item)
        }
        let knownSets = Set(items.flatMap(\.sets))

        guard let storeValues = try root.array("stores"), !storeValues.isEmpty else { throw root.error("stores", "must list at least one store") }
        var stores: [StoreDefinition] = []
        for (value, path) in storeValues {
            let fields = try document.fields(value, at: path)
            let store = try Self.store(fields, knownSets: knownSets)
            guard !stores.contains(where: { $0.id == store.id }) else { throw fields.error("id", "the store \(store.id) is listed twice") }
            stores.append(store)
        }

        var overrides: [WeightOverride] = []
        for (value, path) in try root.array("overrides") ?? [] {
            overrides.append(try Self.override(
                try document.fields(value, at: path), storeIDs: Set(stores.map(\.id)), itemIDs: itemIDs, knownSets: knownSets))
        }
        self.init(stores: stores, items: items, overrides: overrides)

        for (store, (_, path)) in zip(stores, storeValues) where !self.items(of: store).contains(where: { $0.weight > 0 }) {
            throw document.error(path, "the store \(store.id) has no item with a positive weight to show")
        }
    }

    private static func item(_ fields: ConfigFields) throws(ReleaseConfigurationError) -> CatalogItem {
        try fields.requireOnly(["id", "weight", "sets", "added", "data"])
        let item = CatalogItem(
            id: try fields.requiredName("id"),
            weight: try fields.number("weight", in: 0...maximumWeight) ?? 1,
            sets: try fields.strings("sets") ?? [],
            added: try fields.date("added"),
            data: try fields.object("data")?.members ?? [:])
        let size = SealedItem.plaintext(of: item).count
        guard size <= maximumItemBytes else {
            throw fields.error(fields.has("data") ? "data" : "id", "the item takes \(size) bytes sealed; an item may take at most \(maximumItemBytes)")
        }
        return item
    }

    private static func store(_ fields: ConfigFields, knownSets: Set<String>) throws(ReleaseConfigurationError) -> StoreDefinition {
        try fields.requireOnly(["id", "slots", "shelfLife", "sets"])
        let id = try fields.requiredName("id")
        guard let slots = try fields.integer("slots", in: 1...maximumSlots) else { throw fields.error(nil, "needs a field \"slots\"") }
        var shelfLife = ShelfLife.standard
        if let range = try fields.object("shelfLife") {
            try range.requireOnly(["min", "max"])
            let limits = 1...ShelfLife.longestSeconds
            shelfLife.minimumSeconds = try range.integer("min", in: limits) ?? shelfLife.minimumSeconds
            shelfLife.maximumSeconds = try range.integer("max", in: limits) ?? max(shelfLife.maximumSeconds, shelfLife.minimumSeconds)
            guard shelfLife.minimumSeconds <= shelfLife.maximumSeconds else {
                throw range.error(range.has("max") ? "max" : "min", "the shortest shelf life (\(shelfLife.minimumSeconds) s) is longer than the longest (\(shelfLife.maximumSeconds) s)")
            }
        }
        let sets = try fields.strings("sets")
        for (index, set) in (sets ?? []).enumerated() where !knownSets.contains(set) {
            throw fields.document.error(fields.path / "sets" / index, "no item is in the set \"\(set)\"")
        }
        return StoreDefinition(id: id, slots: slots, shelfLife: shelfLife, sets: sets)
    }

    private static func override(
        _ fields: ConfigFields, storeIDs: Set<String>, itemIDs: Set<String>, knownSets: Set<String>
    ) throws(ReleaseConfigurationError) -> WeightOverride {
        try fields.requireOnly(["stores", "item", "items", "set", "from", "until", "newerThanDays", "olderThanDays", "weight", "multiply"])
        let stores = try fields.strings("stores")
        for (index, store) in (stores ?? []).enumerated() where !storeIDs.contains(store) {
            throw fields.document.error(fields.path / "stores" / index, "there is no store \"\(store)\"")
        }
        guard !(fields.has("item") && fields.has("items")) else { throw fields.error("items", "give either item or items, not both") }
        var items = try fields.strings("items")
        if let item = try fields.string("item") { items = [item] }
        for (index, item) in (items ?? []).enumerated() where !itemIDs.contains(item) {
            let path = fields.has("item") ? fields.path / "item" : fields.path / "items" / index
            throw fields.document.error(path, "there is no item \"\(item)\"")
        }
        let set = try fields.string("set")
        if let set, !knownSets.contains(set) { throw fields.error("set", "no item is in the set \"\(set)\"") }
        let from = try fields.date("from")
        let until = try fields.date("until")
        if let from, let until, from >= until { throw fields.error("until", "must be later than from") }

        let effect: WeightOverride.Effect
        switch (try fields.number("weight", in: 0...maximumWeight), try fields.number("multiply", in: 0...maximumWeight)) {
        case (let weight?, nil): effect = .weight(weight)
        case (nil, let factor?): effect = .multiply(factor)
        case (.some, .some): throw fields.error("multiply", "give either weight or multiply, not both")
        case (nil, nil): throw fields.error(nil, "needs a field \"weight\" (a new weight) or \"multiply\" (a factor)")
        }
        return WeightOverride(
            stores: stores, items: items, set: set, from: from, until: until,
            newerThanDays: try fields.number("newerThanDays", in: 0...1e6), olderThanDays: try fields.number("olderThanDays", in: 0...1e6),
            effect: effect)
    }
}
