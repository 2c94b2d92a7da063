import LockstepCore
import PropertyBased
import Testing

@Suite("Object diff: transform concurrent changes")
struct TransformTests {
    /// Both orders of two concurrent edits, each rebased over the other with one winner.
    func bothOrders(base: JSONObject, _ a: JSONObject, _ b: JSONObject, aWins: Bool) throws -> (JSONObject, JSONObject) {
        let diffA = ObjectDiff(from: base, to: a)
        let diffB = ObjectDiff(from: base, to: b)
        let winner: ConflictWinner = aWins ? .incoming : .applied
        let aAfterB = try diffA.transformed(over: diffB, base: base, winner: winner).apply(to: try diffB.apply(to: base))
        let bAfterA = try diffB.transformed(over: diffA, base: base, winner: winner.flipped).apply(to: try diffA.apply(to: base))
        return (aAfterB, bAfterA)
    }

    @Test func editsToDifferentMembersBothLand() throws {
        let (one, other) = try bothOrders(base: ["a": 1, "b": 1], ["a": 2, "b": 1], ["a": 1, "b": 3], aWins: true)
        #expect(one == ["a": 2, "b": 3])
        #expect(other == one)
    }

    @Test func theWinnerTakesACollidingMember() throws {
        for aWins in [true, false] {
            let (one, other) = try bothOrders(base: ["n": 1], ["n": 2], ["n": 3], aWins: aWins)
            #expect(one == ["n": aWins ? 2 : 3])
            #expect(other == one)
        }
    }

    @Test func aWinningEditBringsBackARemovedMemberAndALosingOneDoesNot() throws {
        let base: JSONObject = ["o": ["x": 1, "y": 1]]
        let edited: JSONObject = ["o": ["x": 2, "y": 1]]
        #expect(try bothOrders(base: base, edited, [:], aWins: true) == (["o": ["x": 2, "y": 1]], ["o": ["x": 2, "y": 1]]))
        #expect(try bothOrders(base: base, edited, [:], aWins: false) == ([:], [:]))
    }

    @Test func crossedWiresMergeAsText() throws {
        // node-simperium's crossed_wires test: X appends "D", Y inserts "B"; both land.
        let base: JSONObject = ["t": "AC"]
        let x = ObjectDiff(from: base, to: ["t": "ACD"])
        let y = ObjectDiff(from: base, to: ["t": "ABC"])
        let xRebased = try x.transformed(over: y, base: base, winner: .incoming)
        #expect(xRebased.json == ["t": ["o": "d", "v": "=3\t+D"]])
        #expect(try xRebased.apply(to: try y.apply(to: base)) == ["t": "ABCD"])
    }

    @Test func countersAdd() throws {
        let base: JSONObject = ["n": 10]
        let a = try ObjectDiff(json: ["n": ["o": "I", "v": 2]])
        let b = try ObjectDiff(json: ["n": ["o": "I", "v": -5]])
        #expect(try a.transformed(over: b, base: base, winner: .applied).apply(to: try b.apply(to: base)) == ["n": 7])
    }

    @Test func concurrentListInsertsAtOnePlaceKeepBothWinnerFirst() throws {
        let schema = DiffSchema(members: ["l": DiffSchema(operationType: .list)])
        let base: JSONObject = ["l": [1, 2, 3]]
        let a = ObjectDiff(from: base, to: ["l": [1, 9, 2, 3]], schema: schema)
        let b = ObjectDiff(from: base, to: ["l": [1, 8, 2, 3]], schema: schema)
        for (winner, expected) in [(ConflictWinner.incoming, [1, 9, 8, 2, 3]), (.applied, [1, 8, 9, 2, 3])] {
            let one = try a.transformed(over: b, base: base, winner: winner).apply(to: try b.apply(to: base))
            let other = try b.transformed(over: a, base: base, winner: winner.flipped).apply(to: try a.apply(to: base))
            #expect(one == ["l": .array(expected.map { .integer(Int64($0)) })])
            #expect(other == one)
        }
    }

    @Test func transformedDiffsConverge() async {
        await propertyCheck(count: 500, input: JSONGen.objectTriple, Gen.bool) { triple, aWins throws in
            let (base, a, b) = triple
            let (one, other) = try bothOrders(base: base, a, b, aWins: aWins)
            // Text patches merged by fuzzy matching can settle differently in each order (as in
            // every diff-match-patch system); everything else must be identical.
            for path in JSONDifferences.paths(.object(one), .object(other)) {
                #expect(
                    JSONDifferences.isStringInAll(path, [.object(base), .object(a), .object(b)]),
                    "orders disagree at \(path): \(JSONValue.object(one)) vs \(JSONValue.object(other))")
            }
        }
    }

    @Test func transformedListDiffsConverge() async {
        let schema = DiffSchema(members: ["l": DiffSchema(operationType: .list)])
        let lists = Generator { rng in
            let base = (0..<Int.random(in: 0...6, using: &rng)).map { _ in JSONValue.integer(Int64.random(in: 0...9, using: &rng)) }
            var a = JSONValue.array(base)
            var b = JSONValue.array(base)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                a = RandomJSON.edit(a, using: &rng)
                b = RandomJSON.edit(b, using: &rng)
            }
            return (base, a, b, Bool.random(using: &rng))
        }
        await propertyCheck(count: 1000, input: lists) { input throws in
            let (base, a, b, aWins) = input
            let baseObject: JSONObject = ["l": .array(base)]
            let diffA = ObjectDiff(from: baseObject, to: ["l": a], schema: schema)
            let diffB = ObjectDiff(from: baseObject, to: ["l": b], schema: schema)
            let winner: ConflictWinner = aWins ? .incoming : .applied
            let one = try diffA.transformed(over: diffB, base: baseObject, winner: winner).apply(to: try diffB.apply(to: baseObject))
            let other = try diffB.transformed(over: diffA, base: baseObject, winner: winner.flipped).apply(to: try diffA.apply(to: baseObject))
            #expect(one == other, "base \(base) a \(a) b \(b) aWins \(aWins)")
        }
    }

    @Test func disjointTextEditsConverge() async {
        let texts = Generator { rng in
            let paragraphs = (0..<4).map { _ in
                // Random letters keep each paragraph's text unique, as real prose is: in a
                // repetitive text a patch's context matches in many places.
                RandomJSON.withoutNewlines(RandomJSON.string(using: &rng, maxPieces: 12))
                    + String((0..<60).map { _ in "abcdefghijklmnopqrstuvwxyz ".randomElement(using: &rng)! })
            }
            var a = paragraphs
            var b = paragraphs
            let first = Int.random(in: 0..<4, using: &rng)
            let second = (first + Int.random(in: 1...3, using: &rng)) % 4
            a[first] = RandomJSON.withoutNewlines(RandomJSON.editText(a[first], using: &rng))
            b[second] = RandomJSON.withoutNewlines(RandomJSON.editText(b[second], using: &rng))
            return (paragraphs.joined(separator: "\n\n"), a.joined(separator: "\n\n"), b.joined(separator: "\n\n"), Bool.random(using: &rng))
        }
        await propertyCheck(count: 300, input: texts) { input throws in
            let (base, a, b, aWins) = input
            let (one, other) = try bothOrders(base: ["t": .string(base)], ["t": .string(a)], ["t": .string(b)], aWins: aWins)
            #expect(one == other)
            #expect(one == ["t": .string(Self.combine(base: base, a, b))])
        }
    }

    /// The text with both paragraph-level edits applied. Paragraphs are compared by their
    /// scalars, as the diff sees them: an edit from "e\u{301}" to "é" changes nothing to
    /// `String`'s `==`, which compares canonical equivalents equal, but is an edit all the same.
    static func combine(base: String, _ a: String, _ b: String) -> String {
        let original = base.components(separatedBy: "\n\n")
        let first = a.components(separatedBy: "\n\n")
        let second = b.components(separatedBy: "\n\n")
        return original.indices.map { index in
            first[index].unicodeScalars.elementsEqual(original[index].unicodeScalars) ? second[index] : first[index]
        }.joined(separator: "\n\n")
    }
}
