@testable import LockstepServer
import LockstepCore
import PropertyBased
import Testing

/// Concurrent changes rebase over what the changes before them meant, as their records keep
/// it: whatever the order they arrive in and however they are grouped.
@Suite("Rebasing over stored change records")
struct RebaseOverRecordsTests {
    /// One client's concurrent edit, made against version 1.
    struct Edit: Sendable, CustomStringConvertible {
        var amount: Int64
        var item: String
        /// Where in the list the item goes (the list is empty at version 1: always 0), or a
        /// replace of another member.
        var alsoSetsTitle: Bool

        var description: String { "+\(amount) \(item)\(alsoSetsTitle ? " title" : "")" }

        func change(client: Int) throws -> IncomingChange {
            var operations: [String: DiffOperation] = [
                "n": .increment(.integer(amount)), "items": .list(ListDiff([0: .insert(.string(item))])),
            ]
            if alsoSetsTitle { operations["title"] = .replace(.string(item)) }
            return IncomingChange(
                key: "doc", changeID: "c\(client)", clientID: "client-\(client)", operation: .modify(diff: ObjectDiff(operations), fullData: nil),
                sourceVersion: 1, editTime: Int64(1000 + client))
        }
    }

    static let scope = BucketScope(appID: "app", owner: .shared, bucket: "b")

    /// N concurrent increments and list inserts, in any order and any grouping: the counter is
    /// their sum, every insert is there once, a replace goes to the latest edit stamp.
    @Test func concurrentIncrementsAndInsertsAllLand() async {
        let histories = Generator { rng in
            let edits = (0..<Int.random(in: 2...8, using: &rng)).map { index in
                Edit(amount: Int64.random(in: -50...50, using: &rng), item: "item-\(index)", alsoSetsTitle: Bool.random(using: &rng))
            }
            let order = Array(edits.indices).shuffled(using: &rng)
            let cuts = order.indices.filter { _ in Bool.random(using: &rng) }
            return (edits, order, cuts)
        }
        await propertyCheck(count: 300, input: histories) { history throws in
            let (edits, order, cuts) = history
            var store = MemoryGroupStore()
            let created = try store.commit([ChangeRequest(scope: Self.scope, change: IncomingChange(
                key: "doc", changeID: "create", clientID: "creator", operation: .modify(diff: nil, fullData: ["n": 0, "items": [], "title": "none"]),
                sourceVersion: nil, editTime: 0))])
            #expect(created.count == 1)
            var group: [ChangeRequest] = []
            for (position, index) in order.enumerated() {
                group.append(ChangeRequest(scope: Self.scope, change: try edits[index].change(client: index)))
                if cuts.contains(position) || position == order.count - 1 {
                    for outcome in try store.commit(group) {
                        guard case .committed = outcome else { Issue.record("refused: \(outcome)"); return }
                    }
                    group = []
                }
            }
            let doc = try #require(store.objects[ObjectAddress(scope: Self.scope, key: "doc")])
            #expect(doc.version == edits.count + 1)
            #expect(doc.data["n"] == .integer(edits.map(\.amount).reduce(0, +)))
            #expect(doc.data["items"]?.arrayValue?.compactMap(\.stringValue).sorted() == edits.map(\.item).sorted())
            // The title replace with the latest edit stamp wins, whatever the arrival order.
            let titled = edits.indices.filter { edits[$0].alsoSetsTitle }
            #expect(doc.data["title"] == .string(titled.max().map { edits[$0].item } ?? "none"))
            // Every record sent to clients is portable, and applies in order to the first version.
            var replayed: JSONObject = [:]
            for record in store.changes[ObjectAddress(scope: Self.scope, key: "doc")] ?? [] {
                #expect(record.diff?.isPortable == true)
                replayed = try #require(record.diff).apply(to: replayed)
            }
            #expect(replayed == doc.data)
        }
    }
}
