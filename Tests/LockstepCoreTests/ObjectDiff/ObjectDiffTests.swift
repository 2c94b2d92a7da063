import LockstepCore
import PropertyBased
import Testing

@Suite("Object diff: make and apply")
struct ObjectDiffTests {
    @Test func makesOnlyPortableOperations() throws {
        let before: JSONObject = ["title": "Hello world", "n": 1, "tags": ["a"], "gone": true, "o": ["x": 1]]
        let after: JSONObject = ["title": "Hello kansas", "n": 2, "tags": ["a", "b"], "o": ["x": 1, "y": 2], "added": "z"]
        let diff = ObjectDiff(from: before, to: after)
        #expect(diff.json == [
            "title": ["o": "d", "v": "=6\t-5\t+kansas"], "n": ["o": "r", "v": 2], "tags": ["o": "r", "v": ["a", "b"]],
            "gone": ["o": "-"], "o": ["o": "O", "v": ["y": ["o": "+", "v": 2]]], "added": ["o": "+", "v": "z"],
        ])
        #expect(try diff.apply(to: before) == after)
    }

    @Test func countsTextInUTF16CodeUnits() {
        #expect(ObjectDiff(from: ["c": "a😀b"], to: ["c": "a😀bc"]).json == ["c": ["o": "d", "v": "=4\t+c"]])
        #expect(ObjectDiff(from: ["c": "a"], to: ["c": "aé b\n%#"]).json == ["c": ["o": "d", "v": "=1\t+%C3%A9 b%0A%25#"]])
    }

    @Test func appliesEveryOperationAClientMaySend() throws {
        let diff = try ObjectDiff(json: try JSONValue(parsing: #"""
            {"n":{"o":"I","v":5},"f":{"o":"I","v":0.5},"l":{"o":"L","v":{"0":{"o":"-"},"2":{"o":"r","v":9}}},
             "s":{"o":"d","v":"=2\t+!"},"dl":{"o":"dL","v":"=6\t+4%0A"},"o":{"o":"O","v":{"k":{"o":"-"}}},
             "new":{"o":"+","v":[1]},"r":{"o":"r","v":null}}
            """#))
        let before: JSONObject = ["n": 1, "f": 1, "l": [1, 2, 3], "s": "hi", "dl": [1, 2, 3], "o": ["k": 1, "j": 2], "r": "x"]
        #expect(try diff.apply(to: before) == [
            "n": 6, "f": 1.5, "l": [2, 9], "s": "hi!", "dl": [1, 2, 3, 4], "o": ["j": 2], "new": [1], "r": nil,
        ])
    }

    @Test func appliesListTextInTheAppleForm() throws {
        // simperium-ios joins elements with newlines, no trailing newline, strings unescaped.
        let before: JSONObject = ["l": ["a", "b"]]
        let delta = try ObjectDiff(json: ["l": ["o": "dL", "v": "=7\t+%0A\"c\""]])
        #expect(try delta.apply(to: before) == ["l": ["a", "b", "c"]])
    }

    @Test(arguments: [
        (#"{"a":{"o":"?","v":1}}"#, DiffError.Kind.unknownOperation, "a"),
        (#"{"a":{"v":1}}"#, .malformed, "a"),
        (#"{"a":{"o":"+"}}"#, .malformed, "a"),
        (#"{"a":{"o":"d","v":"=9"}}"#, .badTextDelta, "a"),
        (#"{"a":{"o":"d","v":"=2\tx"}}"#, .badTextDelta, "a"),
        (#"{"n":{"o":"d","v":"=1"}}"#, .wrongType, "n"),
        (#"{"m":{"o":"O","v":{"deep":{"o":"I","v":1}}}}"#, .wrongType, "m.deep"),
        (#"{"l":{"o":"L","v":{"7":{"o":"r","v":1}}}}"#, .indexOutOfRange, "l[7]"),
        (#"{"l":{"o":"L","v":{"x":{"o":"r","v":1}}}}"#, .malformed, "l"),
        (#"{"n":{"o":"I","v":"1"}}"#, .malformed, "n"),
        (#"{"big":{"o":"I","v":1}}"#, .numberOverflow, "big"),
        (#"{"a":{"o":"r","v":1},"l":{"o":"L","v":{"0":{"o":"d","v":"=5"}}}}"#, .badTextDelta, "l[0]"),
        (#"[1]"#, .malformed, ""),
    ])
    func malformedDiffsFailWithAPathAndChangeNothing(diffText: String, kind: DiffError.Kind, path: String) throws {
        let before: JSONObject = ["a": "ab", "n": 1, "m": ["deep": "x"], "l": ["abc"], "big": .integer(.max)]
        let original = before
        do {
            let diff = try ObjectDiff(json: try JSONValue(parsing: diffText))
            _ = try diff.apply(to: before)
            Issue.record("expected a DiffError")
        } catch let error as DiffError {
            #expect(error.kind == kind)
            #expect(error.path.description == path)
        }
        #expect(before == original)
    }

    @Test func applyOfDiffGivesTheTarget() async {
        await propertyCheck(count: 500, input: JSONGen.objectPair) { pair throws in
            let (a, b) = pair
            let diff = ObjectDiff(from: a, to: b)
            #expect(try diff.apply(to: a) == b)
            #expect(try ObjectDiff(json: diff.json) == diff)
            #expect(ObjectDiff(from: a, to: a).isEmpty)
        }
    }

    @Test func diffsAreWrittenAsTheSerializerWritesTheirJSON() async {
        let text = DiffSchema(members: ["a": DiffSchema(operationType: .listText), "tags": DiffSchema(operationType: .listText)])
        await propertyCheck(count: 500, input: JSONGen.objectPair, Gen.bool) { pair, listText throws in
            let diff = ObjectDiff(from: pair.0, to: pair.1, schema: listText ? text : nil)
            var written: [UInt8] = []
            diff.appendJSON(to: &written)
            #expect(written == JSONSerializer().bytes(diff.json))
            #expect(diff.jsonText == diff.json.description)
        }
        // List indexes are names ordered as text: "10" before "9".
        let list = ObjectDiff(["l": .list(ListDiff([2: .remove, 9: .insert(1), 10: .replace("x"), 11: .text("=1\t+y")]))])
        #expect(list.jsonText == #"{"l":{"o":"L","v":{"10":{"o":"r","v":"x"},"11":{"o":"d","v":"=1\t+y"},"2":{"o":"-"},"9":{"o":"+","v":1}}}}"#)
        #expect(list.jsonText == list.json.description)
    }

    @Test func applyOfDiffGivesTheTargetForUnrelatedDocuments() async {
        await propertyCheck(count: 300, input: JSONGen.object, JSONGen.object) { a, b throws in
            #expect(try ObjectDiff(from: a, to: b).apply(to: a) == b)
        }
    }

    @Test func listDiffsRoundTrip() async {
        let lists = Generator { rng in
            let base = (0..<Int.random(in: 0...6, using: &rng)).map { _ in RandomJSON.value(using: &rng, depth: 1) }
            return (base, RandomJSON.edit(.array(base), using: &rng).arrayValue!)
        }
        await propertyCheck(count: 500, input: lists) { pair throws in
            let (a, b) = pair
            #expect(try ListDiff(from: a, to: b).apply(to: a) == b)
            let text = DiffSchema(members: ["l": DiffSchema(operationType: .listText)])
            #expect(try ObjectDiff(from: ["l": .array(a)], to: ["l": .array(b)], schema: text).apply(to: ["l": .array(a)]) == ["l": .array(b)])
        }
    }
}
