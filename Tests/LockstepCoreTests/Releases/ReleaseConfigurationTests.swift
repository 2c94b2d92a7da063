import LockstepCore
import Testing

@Suite("Releases: store configuration files")
struct ReleaseConfigurationTests {
    static let example = """
        {
          "stores": [
            { "id": "main", "slots": 12 },
            { "id": "armory", "slots": 80, "shelfLife": { "min": 60, "max": 120 }, "sets": ["weapons"] }
          ],
          "items": [
            { "id": "sword", "weight": 10, "sets": ["weapons"], "added": "2025-01-15", "data": { "price": 100 } },
            { "id": "pumpkin", "weight": 2.5, "sets": ["halloween"] },
            { "id": "potion" }
          ],
          "overrides": [
            { "set": "halloween", "from": "2025-10-25", "until": "2025-11-01T00:00:00Z", "multiply": 20 },
            { "newerThanDays": 7, "multiply": 3, "stores": ["armory"] },
            { "item": "potion", "weight": 0 }
          ]
        }
        """

    @Test func readsEveryPartOfAConfiguration() throws {
        let configuration = try ReleaseConfiguration(parsing: Array(Self.example.utf8), fileName: "store.json")
        #expect(configuration.stores.map(\.id) == ["main", "armory"])
        #expect(configuration.stores[0].shelfLife == .standard)
        #expect(configuration.stores[1].shelfLife == ShelfLife(minimumSeconds: 60, maximumSeconds: 120))
        #expect(configuration.items(of: configuration.stores[1]).map(\.id) == ["sword"])
        #expect(configuration.items[0].added == 1_736_899_200_000)
        #expect(configuration.items[0].data == ["price": 100])
        #expect(configuration.items[2].weight == 1)
        #expect(configuration.overrides[0].from == 1_761_350_400_000)
        #expect(configuration.overrides[0].until == 1_761_955_200_000)
        #expect(configuration.overrides[1].stores == ["armory"])
        #expect(configuration.overrides[2].items == ["potion"])
        #expect(configuration.overrides[2].effect == .weight(0))
    }

    /// Each broken file, and the exact error: file, line of the offending value, field, reason.
    @Test(arguments: [
        (#"{"stores":[{"id":"main","slots":12}],"items":[{"id":"a"}],"extra":1}"#, #"store.json:1: extra: unknown field; expected one of items, overrides, stores"#),
        ("{\n\"stores\": [\n  {\"id\": \"main\",\n   \"slots\": 0}\n],\n\"items\": [{\"id\": \"a\"}]\n}", "store.json:4: stores[0].slots: must be a whole number between 1 and 1000"),
        ("{\n\"stores\": [\n  {\"id\": \"main\"}\n],\n\"items\": [{\"id\": \"a\"}]\n}", #"store.json:3: stores[0]: needs a field "slots""#),
        ("{\n\"stores\": [{\"id\": \"m\", \"slots\": 2,\n \"shelfLife\": {\"min\": 90,\n \"max\": 60}}],\n\"items\": [{\"id\": \"a\"}]\n}", "store.json:4: stores[0].shelfLife.max: the shortest shelf life (90 s) is longer than the longest (60 s)"),
        ("{\"stores\": [{\"id\": \"m\", \"slots\": 2, \"sets\": [\"nope\"]}],\n\"items\": [{\"id\": \"a\"}]}", #"store.json:1: stores[0].sets[0]: no item is in the set "nope""#),
        ("{\"stores\": [{\"id\": \"m\", \"slots\": 2}],\n\"items\": [{\"id\": \"a\"},\n{\"id\": \"a\"}]}", "store.json:3: items[1].id: the item a is listed twice"),
        ("{\"stores\": [{\"id\": \"m\", \"slots\": 2}],\n\"items\": [{\"id\": \"a\",\n\"added\": \"2025-02-30\"}]}", #"store.json:3: items[0].added: "2025-02-30" is not a date like 2025-10-31 or 2025-10-31T18:00:00Z"#),
        ("{\"stores\": [{\"id\": \"m\", \"slots\": 2}],\n\"items\": [{\"id\": \"a b\"}]}", #"store.json:2: items[0].id: "a b" is not a valid name: use 1 to 256 of a-z A-Z 0-9 . _ % @ -"#),
        ("{\"stores\": [{\"id\": \"m\", \"slots\": 2}],\n\"items\": [{\"id\": \"a\", \"weight\": -1}]}", "store.json:2: items[0].weight: must be a number between 0 and 1000000000"),
        ("{\"stores\": [{\"id\": \"m\", \"slots\": 2}],\n\"items\": [{\"id\": \"a\", \"weight\": 0}]}", "store.json:1: stores[0]: the store m has no item with a positive weight to show"),
        ("{\"stores\": [{\"id\": \"m\", \"slots\": 2}],\n\"items\": [{\"id\": \"a\"}],\n\"overrides\": [\n{\"item\": \"b\", \"weight\": 2}]}", #"store.json:4: overrides[0].item: there is no item "b""#),
        ("{\"stores\": [{\"id\": \"m\", \"slots\": 2}],\n\"items\": [{\"id\": \"a\"}],\n\"overrides\": [\n{\"item\": \"a\",\n \"weight\": 2, \"multiply\": 3}]}", "store.json:5: overrides[0].multiply: give either weight or multiply, not both"),
        ("{\"stores\": [{\"id\": \"m\", \"slots\": 2}],\n\"items\": [{\"id\": \"a\"}],\n\"overrides\": [\n{\"set\": \"x\", \"multipy\": 3}]}", "store.json:4: overrides[0].multipy: unknown field; expected one of from, item, items, multiply, newerThanDays, olderThanDays, set, stores, until, weight"),
        ("{\"stores\": [{\"id\": \"m\", \"slots\": 2}],\n\"items\": [{\"id\": \"a\"}],\n\"overrides\": [{\"weight\": 1,\n\"from\": \"2025-02-01\", \"until\": \"2025-01-01\"}]}", "store.json:4: overrides[0].until: must be later than from"),
        ("{\"stores\": [{\"id\": \"m\", \"slots\": 2}],\n\"items\": [{\"id\": \"a\"},]}", "store.json:2: column 23: unexpected ']', expected a value"),
    ])
    func refusesBrokenFilesNamingLineAndField(file: String, error: String) {
        #expect(Self.message(file) == error)
    }

    static func message(_ file: String) -> String? {
        do {
            _ = try ReleaseConfiguration(parsing: Array(file.utf8), fileName: "store.json")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func locationsPointAtEachValue() throws {
        let text = "{\n  \"a\": [1,\n    {\"b\": true}]\n}"
        let located = try JSONParser().parseLocated(Array(text.utf8))
        #expect(located.value == (try JSONValue(parsing: text)))
        #expect(located.locations[[]]?.line == 1)
        #expect(located.locations[[.member("a")]] == JSONLocation(offset: 9, line: 2, column: 8))
        #expect(located.locations[[.member("a"), .index(1), .member("b")]]?.line == 3)
        #expect(located.locations[[.member("a"), .index(1), .member("b")]]?.column == 11)
        #expect(located.locations[[.member("zzz")]] == nil)
    }

    @Test func overridesApplyByDateSetAndAge() throws {
        let configuration = try ReleaseConfiguration(parsing: Array(Self.example.utf8), fileName: "store.json")
        let seed = try ReleaseSeed(text: String(repeating: "s", count: 32))
        let main = StoreSchedule(configuration: configuration, store: configuration.stores[0], seed: seed)
        let armory = StoreSchedule(configuration: configuration, store: configuration.stores[1], seed: seed)
        let pumpkin = configuration.items[1]
        let sword = configuration.items[0]
        let day: Int64 = 86_400_000
        #expect(main.weight(of: pumpkin, at: 1_761_350_400_000 - 1) == 2.5)
        #expect(main.weight(of: pumpkin, at: 1_761_350_400_000) == 50)
        #expect(main.weight(of: pumpkin, at: 1_761_955_200_000) == 2.5)
        #expect(main.weight(of: configuration.items[2], at: 0) == 0)
        #expect(armory.weight(of: sword, at: sword.added! + 6 * day) == 30)
        #expect(armory.weight(of: sword, at: sword.added! + 7 * day) == 10)
        #expect(main.weight(of: sword, at: sword.added! + day) == 10, "the age rule is for the armory only")
    }
}
