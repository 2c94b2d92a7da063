import LockstepCore
import PropertyBased
import Testing

@Suite("Object comparison: the jsondiff and each string as text")
struct ObjectComparisonTests {
    @Test func comparesEachStringThatDiffersAsText() throws {
        let comparison = ObjectComparison(
            from: ["title": "Sofa", "room": "lounge", "address": ["street": "1 High St", "town": "Leeds"], "tags": ["a"], "n": 1],
            to: ["title": "Blue Sofa", "address": ["street": "10 High St", "town": "Leeds"], "tags": ["b"], "n": "1", "x.y": "new"])
        #expect(comparison.diff.json == [
            "title": ["o": "d", "v": "+Blue \t=4"], "room": ["o": "-"], "address": ["o": "O", "v": ["street": ["o": "d", "v": "=1\t+0\t=8"]]],
            "tags": ["o": "r", "v": ["b"]], "n": ["o": "r", "v": "1"], "x.y": ["o": "+", "v": "new"],
        ])
        // Strings on both sides only: not a number that became one, nor a member that is new.
        #expect(comparison.text == [
            "title": TextDiff([.insert("Blue "), .equal("Sofa")]),
            "address.street": TextDiff([.equal("1"), .insert("0"), .equal(" High St")]),
        ])
        #expect(comparison.json["text"] == ["title": [["+", "Blue "], ["=", "Sofa"]], "address.street": [["=", "1"], ["+", "0"], ["=", " High St"]]])
    }

    /// For any two documents: the diff turns one into the other, every string that differs in
    /// both (through objects) has its text diff from the one to the other, and the JSON form
    /// reads back the same.
    @Test func anyTwoDocumentsCompare() async {
        await propertyCheck(count: 300, input: JSONGen.objectPair) { pair in
            let (old, new) = pair
            let comparison = ObjectComparison(from: old, to: new)
            // Recorded, not thrown: propertyCheck drops what its body throws.
            do {
                #expect(try comparison.diff.apply(to: old) == new)
                #expect(try ObjectComparison(json: comparison.json) == comparison)
            } catch {
                Issue.record(error, "\(pair)")
            }
            var strings: [String: (String, String)] = [:]
            Self.collect(old, new, at: DiffPath(), into: &strings)
            #expect(Set(comparison.text.keys) == Set(strings.keys))
            for (place, (before, after)) in strings {
                #expect(comparison.text[place]?.source == before && comparison.text[place]?.target == after, "\(place)")
            }
        }
    }

    private static func collect(_ old: JSONObject, _ new: JSONObject, at path: DiffPath, into strings: inout [String: (String, String)]) {
        for (name, value) in new {
            switch (old[name], value) {
            case (.string(let before)?, .string(let after)) where before != after:
                strings[path.appending(member: name).description] = (before, after)
            case (.object(let before)?, .object(let after)):
                collect(before, after, at: path.appending(member: name), into: &strings)
            default:
                continue
            }
        }
    }
}
