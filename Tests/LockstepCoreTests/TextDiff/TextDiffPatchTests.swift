import Testing
@testable import LockstepCore

@Suite("TextDiff patches")
struct TextDiffPatchTests {
    private let fox = "The quick brown fox jumps over the lazy dog."
    private let foxChanged = "That quick brown fox jumped over a lazy dog."

    @Test func makeGroupsNearbyChanges() {
        #expect(TextPatch.make(from: "", to: "").isEmpty)
        let patches = TextPatch.make(from: foxChanged, to: fox)
        #expect(patches.map(\.description).joined()
            == "@@ -1,8 +1,7 @@\n Th\n-at\n+e\n  qui\n@@ -21,17 +21,18 @@\n jump\n-ed\n+s\n  over \n-a\n+the\n  laz\n")
        // The same patch from the diff.
        var diff = TextDiff(from: foxChanged, to: fox)
        diff.cleanUpSemantically()
        diff.cleanUpForEfficiency()
        #expect(TextPatch.make(from: foxChanged, diff: diff) == patches)
    }

    @Test func makeEscapesAndCountsScalars() {
        let patches = TextPatch.make(from: "`1234567890-=[]\\;',./", to: "~!@#$%^&*()_+{}|:\"<>?")
        #expect(patches.map(\.description).joined()
            == "@@ -1,21 +1,21 @@\n-%601234567890-=%5B%5D%5C;',./\n+~!@#$%25%5E&*()_+%7B%7D%7C:%22%3C%3E?\n")
        #expect(TextPatch.make(from: "a😀b", to: "a😀c").map(\.description) == ["@@ -1,3 +1,3 @@\n a%F0%9F%98%80\n-b\n+c\n"])
    }

    @Test func makeWithLongRepeats() {
        let source = String(repeating: "abcdef", count: 100)
        let target = source + "123"
        #expect(TextPatch.make(from: source, to: target).map(\.description) == ["@@ -573,28 +573,31 @@\n cdefabcdefabcdefabcdefabcdef\n+123\n"])
    }

    private func hunk(_ start: Int, _ edits: [TextEdit]) -> TextPatch {
        var patch = TextPatch()
        patch.edits = edits
        patch.sourceStart = start
        patch.targetStart = start
        patch.sourceLength = edits.sourceScalars.count
        patch.targetLength = edits.targetScalars.count
        return patch
    }

    @Test func addContext() {
        var patch = hunk(20, [.delete("jump"), .insert("somersault")])
        patch.addContext(from: fox.scalars)
        #expect(patch.description == "@@ -17,12 +17,18 @@\n fox \n-jump\n+somersault\n s ov\n")
        // Not enough trailing context.
        patch = hunk(20, [.delete("jump"), .insert("somersault")])
        patch.addContext(from: "The quick brown fox jumps.".scalars)
        #expect(patch.description == "@@ -17,10 +17,16 @@\n fox \n-jump\n+somersault\n s.\n")
        // Not enough leading context.
        patch = hunk(2, [.delete("e"), .insert("at")])
        patch.addContext(from: "The quick brown fox jumps.".scalars)
        #expect(patch.description == "@@ -1,7 +1,8 @@\n Th\n-e\n+at\n  qui\n")
        // Ambiguous context grows until it is unique.
        patch = hunk(2, [.delete("e"), .insert("at")])
        patch.addContext(from: "The quick brown fox jumps.  The quick brown fox crashes.".scalars)
        #expect(patch.description == "@@ -1,27 +1,28 @@\n Th\n-e\n+at\n  quick brown fox jumps. \n")
    }

    @Test func addPadding() {
        func padded(_ source: String, _ target: String) -> [TextPatch] {
            var patches = TextPatch.make(from: source, to: target)
            _ = patches.addPadding()
            return patches
        }
        let pad: [UInt32] = [0x110000, 0x110001, 0x110002, 0x110003]
        // Both edges are fully padded.
        var patches = padded("", "test")
        #expect(patches.map { [$0.sourceStart, $0.sourceLength, $0.targetStart, $0.targetLength] } == [[0, 8, 0, 12]])
        #expect(patches[0].edits == [TextEdit(.equal, scalars: pad), .insert("test"), TextEdit(.equal, scalars: pad)])
        // Partially padded: the context grows to the margin ("@@ -2,8 +2,12 @@" in patch text).
        patches = padded("XY", "XtestY")
        #expect(patches.map { [$0.sourceStart, $0.sourceLength, $0.targetStart, $0.targetLength] } == [[1, 8, 1, 12]])
        #expect(patches[0].edits == [TextEdit(.equal, scalars: pad[1...] + "X".scalars), .insert("test"),
                                     TextEdit(.equal, scalars: "Y".scalars + pad[..<3])])
        // Enough context already: only the positions move.
        patches = padded("XXXXYYYY", "XXXXtestYYYY")
        #expect(patches.map(\.description) == ["@@ -5,8 +5,12 @@\n XXXX\n+test\n YYYY\n"])
    }

    @Test func splitToMaxPatternLength() {
        func split(_ source: String, _ target: String) -> String {
            var patches = TextPatch.make(from: source, to: target)
            patches.splitToMaxPatternLength()
            return patches.map(\.description).joined()
        }
        #expect(split("abcdefghijklmnopqrstuvwxyz01234567890", "XabXcdXefXghXijXklXmnXopXqrXstXuvXwxXyzX01X23X45X67X89X0")
            == "@@ -1,32 +1,46 @@\n+X\n ab\n+X\n cd\n+X\n ef\n+X\n gh\n+X\n ij\n+X\n kl\n+X\n mn\n+X\n op\n+X\n qr\n+X\n st\n+X\n uv\n+X\n wx\n+X\n yz\n+X\n 012345\n@@ -25,13 +39,18 @@\n zX01\n+X\n 23\n+X\n 45\n+X\n 67\n+X\n 89\n+X\n 0\n")
        // A large deletion right after the context is not split.
        let big = "abcdef1234567890123456789012345678901234567890123456789012345678901234567890uvwxyz"
        #expect(split(big, "abcdefuvwxyz") == TextPatch.make(from: big, to: "abcdefuvwxyz").map(\.description).joined())
        #expect(split("1234567890123456789012345678901234567890123456789012345678901234567890", "abc")
            == "@@ -1,32 +1,4 @@\n-1234567890123456789012345678\n 9012\n@@ -29,32 +1,4 @@\n-9012345678901234567890123456\n 7890\n@@ -57,14 +1,3 @@\n-78901234567890\n+abc\n")
        #expect(split("abcdefghij , h : 0 , t : 1 abcdefghij , h : 0 , t : 1 abcdefghij , h : 0 , t : 1",
                      "abcdefghij , h : 1 , t : 1 abcdefghij , h : 1 , t : 1 abcdefghij , h : 0 , t : 1")
            == "@@ -2,32 +2,32 @@\n bcdefghij , h : \n-0\n+1\n  , t : 1 abcdef\n@@ -29,32 +29,32 @@\n bcdefghij , h : \n-0\n+1\n  , t : 1 abcdef\n")
    }

    @Test func applyExactAndFuzzy() {
        #expect(TextPatch.make(from: "", to: "").apply(to: "Hello world.") == ("Hello world.", []))
        let patches = TextPatch.make(from: fox, to: foxChanged)
        #expect(patches.apply(to: fox) == (foxChanged, [true, true]))
        #expect(patches.apply(to: "The quick red rabbit jumps over the tired tiger.")
            == ("That quick red rabbit jumped over a tired tiger.", [true, true]))
        #expect(patches.apply(to: "I am the very model of a modern major general.")
            == ("I am the very model of a modern major general.", [false, false]))
    }

    @Test func applyLargeDeletions() {
        let patches = TextPatch.make(from: "x1234567890123456789012345678901234567890123456789012345678901234567890y", to: "xabcy")
        #expect(patches.apply(to: "x123456789012345678901234567890-----++++++++++-----123456789012345678901234567890y")
            == ("xabcy", [true, true]))
        // Too much of the deleted text differs.
        let changed = "x12345678901234567890---------------++++++++++---------------12345678901234567890y"
        #expect(patches.apply(to: changed)
            == ("xabc12345678901234567890---------------++++++++++---------------12345678901234567890y", [false, true]))
        #expect(patches.apply(to: changed, options: .init(deleteThreshold: 0.6)) == ("xabcy", [true, true]))
    }

    @Test func applyWithExactMatching() {
        let patches = TextPatch.make(from: "abcdefghijklmnopqrstuvwxyz--------------------1234567890",
                                     to: "abcXXXXXXXXXXdefghijklmnopqrstuvwxyz--------------------1234567YYYYYYYYYY890")
        #expect(patches.apply(to: "ABCDEFGHIJKLMNOPQRSTUVWXYZ--------------------1234567890", options: .init(matchThreshold: 0, matchDistance: 0))
            == ("ABCDEFGHIJKLMNOPQRSTUVWXYZ--------------------1234567YYYYYYYYYY890", [false, true]))
    }

    @Test func applyAtTheEdges() {
        #expect(TextPatch.make(from: "", to: "test").apply(to: "") == ("test", [true]))
        #expect(TextPatch.make(from: "The", to: "Tthe").apply(to: "The") == ("Tthe", [true]))
        #expect(TextPatch.make(from: "y", to: "y123").apply(to: "x") == ("x123", [true]))
    }

    @Test func applyToleratesOddOptions() {
        let patches = TextPatch.make(from: fox, to: foxChanged)
        for threshold in [Double.nan, .infinity, -1, 2] {
            for distance in [0, 1, Int.max] {
                let result = patches.apply(to: "The quick red rabbit jumps over the tired tiger.",
                                           options: .init(matchThreshold: threshold, matchDistance: distance))
                #expect(result.applied.count == 2)
            }
        }
    }

    @Test func applyDoesNotChangeThePatches() {
        let patches = TextPatch.make(from: "The quick brown fox jumps over the lazy dog.", to: "Woof")
        let copy = patches
        _ = patches.apply(to: "The quick brown fox jumps over the lazy dog.")
        #expect(patches == copy)
    }
}
