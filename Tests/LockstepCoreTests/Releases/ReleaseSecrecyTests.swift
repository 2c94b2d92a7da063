import LockstepCore
import PropertyBased
import Testing

@Suite("Releases: hash chains and sealed items")
struct ReleaseSecrecyTests {
    let seed = try! ReleaseSeed(text: RandomStores.seedText)

    @Test func aKeyOpensEveryEarlierKeyOfItsEpochAndNoLaterOne() {
        let chain = ReleaseKeyChain(seed: seed, store: "main", epoch: 480_000)
        let released = ReleasedKey(store: "main", position: ChainPosition(epoch: 480_000, index: 1800), key: chain.key(at: 1800))
        #expect(released.verify(anchor: chain.anchor))
        for index in [0, 1, 900, 1799, 1800] {
            #expect(released.key(at: ChainPosition(epoch: 480_000, index: index)) == chain.key(at: index))
        }
        #expect(released.key(at: ChainPosition(epoch: 480_000, index: 1801)) == nil)
        #expect(released.key(at: ChainPosition(epoch: 479_999, index: 0)) == nil)
        // Hashing forward from the released key never lands on a later key.
        var reachable: Set<[UInt8]> = []
        var key = chain.key(at: 1800)
        for _ in 0...ReleaseKeyChain.length {
            reachable.insert(key)
            key = ReleaseKeyChain.earlier(key, by: 1)
        }
        for index in 1801..<ReleaseKeyChain.length { #expect(!reachable.contains(chain.key(at: index))) }
        // A key claimed at the wrong place, or of another epoch, fails the anchor.
        #expect(!ReleasedKey(store: "main", position: ChainPosition(epoch: 480_000, index: 1801), key: chain.key(at: 1800)).verify(anchor: chain.anchor))
        let next = ReleaseKeyChain(seed: seed, store: "main", epoch: 480_001)
        #expect(next.anchor != chain.anchor)
        #expect(!ReleasedKey(store: "main", position: ChainPosition(epoch: 480_000, index: 5), key: next.key(at: 5)).verify(anchor: chain.anchor))
        #expect(ReleaseKeyChain(seed: seed, store: "other", epoch: 480_000).anchor != chain.anchor)
    }

    /// Everything published by `now`: the windows served so far that still matter, and every
    /// key released so far (the latest of each epoch, which opens the rest). Nothing that
    /// starts after `now` may open with any of it, and nothing in the windows names an item.
    @Test func noItemOpensBeforeItsRelease() async {
        await propertyCheck(count: 25, input: RandomStores.configurationAndTime) { input throws in
            let (configuration, now) = input
            let store = configuration.stores[0]
            let schedule = StoreSchedule(configuration: configuration, store: store, seed: seed)
            let latestStart = ReleaseWindow.start(containing: now)
            let windows = [latestStart - 9 * 60_000, latestStart - 4 * 60_000, latestStart].map { start in
                ReleaseWindow(schedule: schedule, start: start) { ReleaseKeyChain(seed: seed, store: store.id, epoch: $0) }
            }
            let current = ChainPosition(releasedAt: now)
            var released = [ReleasedKey(store: store.id, position: current, key: ReleaseKeyChain(seed: seed, store: store.id, epoch: current.epoch).key(at: current.index))]
            for epoch in (current.epoch - 2)..<current.epoch {
                let last = ChainPosition(epoch: epoch, index: ReleaseKeyChain.length - 1)
                released.append(ReleasedKey(store: store.id, position: last, key: ReleaseKeyChain(seed: seed, store: store.id, epoch: epoch).key(at: last.index)))
            }
            released = Array(Set(released + windows.flatMap(\.released)))
            var opened = 0
            for window in windows {
                try window.verify()
                let text = JSONSerializer().string(window.json)
                for item in configuration.items { #expect(!text.contains(item.id)) }
                #expect(Set(window.entries.map(\.box.count)).count == 1, "every box of a store has one size")
                for entry in window.entries {
                    let keys = released.compactMap { $0.key(at: entry.position) }
                    if entry.start <= now {
                        #expect(!keys.isEmpty)
                        for key in keys { _ = try entry.open(store: store.id, chainKey: key) }
                        opened += 1
                    } else {
                        #expect(keys.isEmpty, "a key of \(entry.position) came out before \(entry.start)")
                        // Nor does the latest released key, or the one before it, open it.
                        for key in released where key.position.epoch >= current.epoch {
                            for candidate in [key.key, ReleaseKeyChain.earlier(key.key, by: 1)] {
                                #expect(throws: ReleaseVerificationError.self) { try entry.open(store: store.id, chainKey: candidate) }
                            }
                        }
                    }
                }
            }
            #expect(opened > 0)
        }
    }

    @Test func aSwappedOrMovedBoxIsCaught() throws {
        let configuration = ReleaseConfiguration(stores: [StoreDefinition(id: "main", slots: 4)], items: [CatalogItem(id: "a"), CatalogItem(id: "b")])
        let start: Int64 = 1_761_400_020_000
        let window = ReleaseScheduleTests.window(configuration, seed: seed, start: start)
        var swapped = window
        swapped.entries[0].box = window.entries[1].box
        #expect(throws: ReleaseVerificationError.self) { try swapped.verify() }
        // Even with a digest recomputed to match, a box moved to another slot does not open there.
        let entry = window.entries[0]
        let moved = window.entries.first { $0.slot != entry.slot }!
        let chain = ReleaseKeyChain(seed: seed, store: "main", epoch: moved.position.epoch)
        var impostor = moved
        impostor.box = entry.box
        #expect(throws: ReleaseVerificationError.self) { try impostor.open(store: "main", chainKey: chain.key(at: moved.position.index)) }
    }
}
