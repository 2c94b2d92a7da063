import Foundation
@testable import LockstepClient
import LockstepCore
import PropertyBased
import Testing

/// Typed writes on a real store: they change only the members whose encoding changed, and
/// leave every member the type does not model as it is.
@Suite("Typed writes")
struct TypedWriteTests {
    struct Item: Codable, Sendable, Equatable {
        var name: String
        var quantity: Int
        var note: String?
    }

    /// A client of a server nothing answers at: everything stays on the device.
    static func offlineClient(_ store: URL) throws -> LockstepClient {
        var configuration = LockstepClient.Configuration()
        configuration.logger.logLevel = .critical
        return try LockstepClient(storeDirectory: store, server: unreachableServer, app: "app", token: "t", configuration: configuration)
    }

    @Test("for random objects with members the type does not model and random typed edits, put and update leave every such member as it was, and the object reads as the edited value")
    func randomEditsKeepUnmodeledMembers() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try Self.offlineClient(store)
        let listings = try client.bucket("listings", of: Listing.self)
        await propertyCheck(count: 300, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            await recordingThrows {
                var random = Xoshiro(seed: (UInt64(seed), 0xC0DE, UInt64(seed) &* 17, 0x9E37_79B9_7F4A_7C15))
                let test = TypedWriteCase.random(using: &random)
                let key = "listing-\(seed)"
                try await listings.raw.put(key, test.stored)
                if test.throughPut {
                    try await listings.put(key, test.edited)
                } else {
                    try await listings.update(key) { [edited = test.edited] in $0 = edited }
                }
                #expect(test.violation(in: try listings.raw.get(key) ?? [:]) == nil, "\(test)")
            }
        }
        await client.close()
    }

    @Test("a typed update of a synced object sends a diff of the members it changed, and nothing of the others")
    func updateSendsOnlyChangedMembers() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try Self.offlineClient(store)
        let items = try client.bucket("items", of: Item.self)
        let photo: JSONValue = ["$blob": .string("sha256:" + String(repeating: "ab", count: 32)), "size": 12, "type": "image/png"]
        try await items.raw.put("milk", ["name": "milk", "quantity": 1, "photo": photo, "aisle": 4])
        try await client.acknowledge(try await client.replica.takeOutgoing(bucket: "items", resend: false), bucket: "items")

        try await items.update("milk") { $0.quantity = 2 }
        let sent = try await client.replica.takeOutgoing(bucket: "items", resend: false)
        #expect(sent.count == 1)
        #expect(sent.first?["v"] == ["quantity": ["o": "r", "v": 2]])
        #expect(try items.raw.get("milk") == ["name": "milk", "quantity": 2, "photo": photo, "aisle": 4])
        await client.close()
    }

    @Test("an optional set to nil removes its member; a member the type never encodes stays; replace drops it")
    func optionalsAndReplace() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try Self.offlineClient(store)
        let items = try client.bucket("items", of: Item.self)
        try await items.raw.put("eggs", ["name": "eggs", "quantity": 12, "note": "free range", "aisle": 4])
        try await items.update("eggs") { $0.note = nil }
        #expect(try items.raw.get("eggs") == ["name": "eggs", "quantity": 12, "aisle": 4])
        try await items.put("eggs", Item(name: "eggs", quantity: 6, note: "small"))
        #expect(try items.raw.get("eggs") == ["name": "eggs", "quantity": 6, "note": "small", "aisle": 4])
        try await items.replace("eggs", with: Item(name: "eggs", quantity: 6, note: nil))
        #expect(try items.raw.get("eggs") == ["name": "eggs", "quantity": 6])
        await client.close()
    }

    @Test("put over an object that is not the type's sets the members the value encodes and keeps the others")
    func putOverAnotherShape() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = try Self.offlineClient(store)
        let items = try client.bucket("items", of: Item.self)
        try await items.raw.put("bread", ["name": 7, "owner": "web"])
        try await items.put("bread", Item(name: "bread", quantity: 1))
        #expect(try items.raw.get("bread") == ["name": "bread", "quantity": 1, "owner": "web"])
        await client.close()
    }

    @Test("a list edit keeps what the type does not model of each element it keeps, moves or edits")
    func listElementsKeepTheirMembers() {
        let stored: JSONObject = ["lines": [
            ["id": "a", "count": 1, "extra": "x"], ["id": "b", "count": 2, "extra": "y"], ["id": "c", "count": 3, "extra": "z"],
        ]]
        let old: JSONObject = ["lines": [["id": "a", "count": 1], ["id": "b", "count": 2], ["id": "c", "count": 3]]]
        // c moved first, b removed, a edited, d added.
        let new: JSONObject = ["lines": [["id": "c", "count": 3], ["id": "a", "count": 5], ["id": "d", "count": 2]]]
        #expect(EncodedEdit.apply(from: old, to: new, onto: stored) == ["lines": [
            ["id": "c", "count": 3, "extra": "z"], ["id": "a", "count": 5, "extra": "x"], ["id": "d", "count": 2],
        ]])
        // Without ids, an edited element goes to the one it shares at least half its members with.
        let tags: JSONObject = ["tags": [["name": "red", "hex": "f00", "by": "web"], ["name": "blue", "hex": "00f", "by": "app"]]]
        #expect(EncodedEdit.apply(
            from: ["tags": [["name": "red", "hex": "f00"], ["name": "blue", "hex": "00f"]]],
            to: ["tags": [["name": "blue", "hex": "00e"], ["name": "green", "hex": "0f0"]]], onto: tags
        ) == ["tags": [["name": "blue", "hex": "00e", "by": "app"], ["name": "green", "hex": "0f0"]]])
    }
}
