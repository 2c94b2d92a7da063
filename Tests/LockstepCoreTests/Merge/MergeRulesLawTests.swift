import LockstepCore
import PropertyBased
import Testing

/// The laws of ``MergeRules`` (its rule 2), checked on generated concurrent edits: each edit
/// is made against one base version, and a server takes them in some order, rebasing each over
/// the rebased forms of those it took before (what change records keep), as the store does.
@Suite("Merge rules: laws of rebasing concurrent edits")
struct MergeRulesLawTests {
    /// One device's edit of the base, with its stamp.
    struct Edit: Sendable, CustomStringConvertible {
        var diff: ObjectDiff
        var stamp: EditStamp
        var description: String { "\(stamp.clientID)@\(stamp.time.map(String.init) ?? "-"): \(diff.json)" }
    }

    static let base: JSONObject = ["n": 10, "items": ["a", "b"], "title": "base", "text": "the quick brown fox", "note": "kept"]

    /// Applies `edits` in arrival order, each rebased over those before it.
    static func arrive(_ edits: [Edit], on base: JSONObject = base) throws -> JSONObject {
        var object = base
        var applied: [(diff: ObjectDiff, stamp: EditStamp)] = []
        for edit in edits {
            let rebased = try MergeRules.rebase(edit.diff, stamp: edit.stamp, base: base, over: applied)
            object = try rebased.apply(to: object)
            applied.append((rebased, edit.stamp))
        }
        return object
    }

    static func stamp(_ client: Int, time: Int64?) -> EditStamp {
        EditStamp(time: time, clientID: "client-\(client)")
    }

    /// Edits of 2 to 6 devices, with distinct or equal times, or none, in a random arrival order.
    static func concurrent(_ make: @escaping @Sendable (Int, inout any SeededRandomNumberGenerator) -> ObjectDiff)
        -> Generator<([Edit], [Int]), Shrink.None<([Edit], [Int])>>
    {
        Generator { rng in
            let count = Int.random(in: 2...6, using: &rng)
            let timed = Int.random(in: 0..<4, using: &rng) > 0
            let edits = (0..<count).map { client in
                Edit(diff: make(client, &rng), stamp: stamp(client, time: timed ? Int64.random(in: 1...3, using: &rng) : nil))
            }
            return (edits, Array(edits.indices).shuffled(using: &rng))
        }
    }

    @Test("a change made against the current version applies as it is")
    func nothingToRebaseOver() async {
        await propertyCheck(count: 200, input: Self.concurrent { _, rng in Self.anyEdit(using: &rng) }) { input throws in
            let edit = input.0[0]
            #expect(try MergeRules.rebase(edit.diff, stamp: edit.stamp, base: Self.base, over: []).apply(to: Self.base)
                == (try edit.diff.apply(to: Self.base)))
        }
    }

    @Test("increments add, whatever the order")
    func incrementsAdd() async {
        await propertyCheck(count: 200, input: Self.concurrent { _, rng in
            ObjectDiff(["n": .increment(.integer(Int64.random(in: -100...100, using: &rng)))])
        }) { input throws in
            let (edits, order) = input
            let sum = edits.reduce(Int64(10)) { total, edit in
                guard case .increment(.integer(let amount))? = edit.diff.operations["n"] else { return total }
                return total + amount
            }
            #expect(try Self.arrive(order.map { edits[$0] })["n"] == .integer(sum))
        }
    }

    @Test("list inserts shift: every insert lands once, whatever the order")
    func listInsertsAllLand() async {
        await propertyCheck(count: 200, input: Self.concurrent { client, rng in
            ObjectDiff(["items": .list(ListDiff([Int.random(in: 0...2, using: &rng): .insert(.string("x\(client)"))]))])
        }) { input throws in
            let (edits, order) = input
            let items = try Self.arrive(order.map { edits[$0] })["items"]?.arrayValue ?? []
            #expect(items.count == 2 + edits.count)
            for client in edits.indices { #expect(items.filter { $0 == .string("x\(client)") }.count == 1, "x\(client) in \(items)") }
            #expect(items.filter { $0 == "a" || $0 == "b" } == ["a", "b"], "the base's items keep their order")
        }
    }

    @Test("edits of different members all land")
    func differentMembersAllLand() async {
        await propertyCheck(count: 200, input: Self.concurrent { client, rng in
            ObjectDiff(["m\(client)": .insert(.integer(Int64.random(in: 0...9, using: &rng)))])
        }) { input throws in
            let (edits, order) = input
            let result = try Self.arrive(order.map { edits[$0] })
            for edit in edits {
                for (name, operation) in edit.diff.operations {
                    guard case .insert(let value) = operation else { continue }
                    #expect(result[name] == value)
                }
            }
            #expect(result["note"] == "kept")
        }
    }

    @Test("a member set by several: the later time wins, ties by client id, without times the last to arrive")
    func theLaterStampWins() async {
        await propertyCheck(count: 300, input: Self.concurrent { client, _ in
            ObjectDiff(["title": .replace(.string("by \(client)"))])
        }) { input throws in
            let (edits, order) = input
            let arrived = order.map { edits[$0] }
            let winner = arrived.dropFirst().reduce(arrived[0]) { current, next in
                MergeRules.winner(incoming: next.stamp, applied: current.stamp) == .incoming ? next : current
            }
            guard case .replace(let value)? = winner.diff.operations["title"] else { return }
            #expect(try Self.arrive(arrived)["title"] == value)
            if arrived.allSatisfy({ $0.stamp.time != nil }) {
                // With times, the order of arrival does not matter.
                #expect(try Self.arrive(arrived.reversed())["title"] == value)
            }
        }
    }

    @Test("text edits of one string merge: every insertion at its own place is kept")
    func textEditsMerge() async {
        await propertyCheck(count: 200, input: Self.concurrent { client, _ in
            // Each device inserts its mark after a different word of "the quick brown fox".
            let offsets = [3, 9, 15, 19, 0, 19]
            let offset = offsets[client % offsets.count]
            let length = "the quick brown fox".count
            let delta = (offset > 0 ? "=\(offset)\t" : "") + "+<\(client)>" + (length - offset > 0 ? "\t=\(length - offset)" : "")
            return ObjectDiff(["text": .text(delta)])
        }) { input throws in
            let (edits, order) = input
            let text = try Self.arrive(order.map { edits[$0] })["text"]?.stringValue ?? ""
            for client in edits.indices { #expect(text.contains("<\(client)>"), "<\(client)> in \(text)") }
            #expect(text.replacing(/<\d>/, with: "") == "the quick brown fox")
        }
    }

    /// Any of the edits above.
    static func anyEdit(using rng: inout some RandomNumberGenerator) -> ObjectDiff {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: ObjectDiff(["n": .increment(.integer(Int64.random(in: -5...5, using: &rng)))])
        case 1: ObjectDiff(["items": .list(ListDiff([Int.random(in: 0...2, using: &rng): .insert("y")]))])
        case 2: ObjectDiff(["title": .replace("t")])
        default: ObjectDiff(["text": .text("=4\t+very \t=15")])
        }
    }
}
