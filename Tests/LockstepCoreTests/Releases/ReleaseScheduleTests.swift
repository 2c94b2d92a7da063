import LockstepCore
import PropertyBased
import Testing

/// Random stores for property tests: any shelf-life range, a few slots, a small catalog.
enum RandomStores {
    static let seedText = "a-test-seed-that-is-long-enough-0123456789"

    static func configuration<R: RandomNumberGenerator>(using rng: inout R) -> ReleaseConfiguration {
        let minimum = Int.random(in: 3...120, using: &rng)
        let maximum = minimum + Int.random(in: 0...300, using: &rng)
        let items = (0..<Int.random(in: 1...6, using: &rng)).map { index in
            CatalogItem(
                id: "item-\(index)-\(UInt32.random(in: 0...UInt32.max, using: &rng))", weight: Double(Int.random(in: 1...20, using: &rng)),
                data: ["blurb": .string(String(repeating: "x", count: Int.random(in: 0...40, using: &rng)))])
        }
        let store = StoreDefinition(
            id: "store-\(Int.random(in: 0...99, using: &rng))", slots: Int.random(in: 1...6, using: &rng),
            shelfLife: ShelfLife(minimumSeconds: minimum, maximumSeconds: maximum))
        return ReleaseConfiguration(stores: [store], items: items)
    }

    /// Somewhere between 2001 and 2096, on a whole millisecond.
    static func time<R: RandomNumberGenerator>(using rng: inout R) -> Int64 {
        Int64.random(in: 1_000_000_000_000...4_000_000_000_000, using: &rng)
    }

    static var configurationAndTime: Generator<(ReleaseConfiguration, Int64), Shrink.None<(ReleaseConfiguration, Int64)>> {
        Generator { rng in (configuration(using: &rng), time(using: &rng)) }
    }
}

@Suite("Releases: schedules and windows")
struct ReleaseScheduleTests {
    let seed = try! ReleaseSeed(text: RandomStores.seedText)

    static func window(_ configuration: ReleaseConfiguration, seed: ReleaseSeed, start: Int64) -> ReleaseWindow {
        let store = configuration.stores[0]
        let schedule = StoreSchedule(configuration: configuration, store: store, seed: seed)
        return ReleaseWindow(schedule: schedule, start: start) { epoch in ReleaseKeyChain(seed: seed, store: store.id, epoch: epoch) }
    }

    @Test func independentGeneratorsGiveByteIdenticalWindows() throws {
        let text = ReleaseConfigurationTests.example
        let start: Int64 = 1_761_400_020_000
        let a = try ReleaseConfiguration(parsing: Array(text.utf8), fileName: "a.json")
        let b = try ReleaseConfiguration(parsing: Array(text.utf8), fileName: "b.json")
        let first = JSONSerializer().bytes(Self.window(a, seed: try ReleaseSeed(text: RandomStores.seedText), start: start).json)
        let second = JSONSerializer().bytes(Self.window(b, seed: try ReleaseSeed(text: RandomStores.seedText + "\n"), start: start).json)
        #expect(first == second)
        let other = JSONSerializer().bytes(Self.window(a, seed: try ReleaseSeed(text: RandomStores.seedText + "x"), start: start).json)
        #expect(first != other)
        let parsed = try ReleaseWindow(json: try JSONValue(parsing: first))
        #expect(parsed == Self.window(a, seed: seed, start: start))
        try parsed.verify()
    }

    @Test func shelfLivesStayInRangeAndSlotsNeverGap() async {
        await propertyCheck(count: 100, input: RandomStores.configurationAndTime) { input throws in
            let (configuration, time) = input
            let store = configuration.stores[0]
            let schedule = StoreSchedule(configuration: configuration, store: store, seed: seed)
            let entries = schedule.entries(from: time, to: time + 600_000)
            for slot in 0..<store.slots {
                let shown = entries.filter { $0.slot == slot }
                #expect(shown.first!.start <= time)
                #expect(shown.last!.end >= time + 600_000)
                for (earlier, later) in zip(shown, shown.dropFirst()) { #expect(earlier.end == later.start) }
                for entry in shown {
                    let seconds = (entry.end - entry.start) / 1000
                    #expect((Int64(store.shelfLife.minimumSeconds)...Int64(store.shelfLife.maximumSeconds)).contains(seconds))
                    #expect(entry.start % 1000 == 0)
                    #expect(schedule.entry(slot: slot, at: entry.start) == entry)
                    #expect(schedule.entry(slot: slot, at: entry.end - 1) == entry)
                }
            }
        }
    }

    @Test func weightsDecideHowOftenItemsComeUp() {
        let items = [CatalogItem(id: "common", weight: 9), CatalogItem(id: "rare", weight: 1), CatalogItem(id: "never", weight: 0)]
        let store = StoreDefinition(id: "main", slots: 50, shelfLife: ShelfLife(minimumSeconds: 10, maximumSeconds: 20))
        let schedule = StoreSchedule(configuration: ReleaseConfiguration(stores: [store], items: items), store: store, seed: seed)
        let shown = schedule.entries(from: 1_700_000_000_000, to: 1_700_000_000_000 + 3_600_000).map { $0.item!.id }
        let common = Double(shown.filter { $0 == "common" }.count) / Double(shown.count)
        #expect(shown.count > 5000)
        #expect(!shown.contains("never"))
        #expect(abs(common - 0.9) < 0.03, "common came up \(common) of the time")
    }

    @Test func everyWeightZeroLeavesTheSlotEmpty() throws {
        let store = StoreDefinition(id: "main", slots: 2)
        let configuration = ReleaseConfiguration(
            stores: [store], items: [CatalogItem(id: "a")], overrides: [WeightOverride(from: 2_000_000_000_000, effect: .weight(0))])
        let schedule = StoreSchedule(configuration: configuration, store: store, seed: seed)
        #expect(schedule.entry(slot: 0, at: 1_900_000_000_000).item?.id == "a")
        let empty = schedule.entry(slot: 0, at: 2_000_000_500_000)
        #expect(empty.item == nil)
        let window = Self.window(configuration, seed: seed, start: ReleaseWindow.start(containing: empty.start))
        let sealed = try #require(window.entries.first { $0.slot == 0 && $0.start == empty.start })
        let chain = ReleaseKeyChain(seed: seed, store: "main", epoch: sealed.position.epoch)
        #expect(try sealed.open(store: "main", chainKey: chain.key(at: sealed.position.index)) == nil)
    }
}
