@testable import LockstepClient
import LockstepCore
import Testing

/// Member edits with text bases: what lets text edits merge through peers.
@Suite("Member edits")
struct MemberEditsTests {
    @Test("a string edited into a string keeps the text it was made from; a value set whole keeps none")
    func textBases() {
        let edits = MemberEdits(from: ["note": "milk", "count": 1, "tag": "a"], to: ["note": "oat milk", "count": 2, "tag": 3])
        #expect(edits.textBases == ["note": "milk"])
    }

    @Test("coalesced edits go from the first edit's text, and a member set whole later loses its base")
    func coalescing() {
        let first = MemberEdits(from: ["note": "milk", "tag": "a"], to: ["note": "oat milk", "tag": "ab"])
        let second = MemberEdits(from: ["note": "oat milk", "tag": "ab", "new": "x"], to: ["note": "oat milk, eggs", "tag": 7, "new": "xy"])
        let both = first.followed(by: second)
        #expect(both.assigned["note"] == "oat milk, eggs")
        #expect(both.textBases == ["note": "milk", "new": "x"])
        let removed = both.followed(by: MemberEdits(assigned: [:], removed: ["note"]))
        #expect(removed.textBases["note"] == nil)
    }

    @Test("a text edit merges into the text held whether or not it is the latest writer; a whole value only when it is")
    func merging() throws {
        let edits = MemberEdits(from: ["note": "milk", "count": 1], to: ["note": "oat milk", "count": 2])
        let held: JSONObject = ["note": "milk, eggs", "count": 5]
        let lost = edits.merged(into: held, winning: [])
        #expect(lost.object == ["note": "oat milk, eggs", "count": 5])
        #expect(lost.taken == ["note"])
        let won = edits.merged(into: held, winning: ["note", "count"])
        #expect(won.object == ["note": "oat milk, eggs", "count": 2])
        // Overlapping rewrites do not merge: the latest writer's value, whole.
        let rewrite = MemberEdits(from: ["status": "listed"], to: ["status": "packed"])
        #expect(rewrite.merged(into: ["status": "loaded"], winning: []).taken.isEmpty)
        #expect(rewrite.merged(into: ["status": "loaded"], winning: ["status"]).object == ["status": "packed"])
    }

    @Test("bases travel between peers; a base for a member not set to a string is ignored")
    func json() throws {
        let edits = MemberEdits(from: ["note": "milk"], to: ["note": "oat milk"], at: 5)
        #expect(try MemberEdits(json: edits.json) == edits)
        let odd = try MemberEdits(json: JSONValue(parsing: #"{"set":{"count":2},"unset":["gone"],"from":{"count":"x","gone":"y"}}"#))
        #expect(odd.textBases.isEmpty)
    }
}
