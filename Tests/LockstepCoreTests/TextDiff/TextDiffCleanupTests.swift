import Testing
@testable import LockstepCore

@Suite("TextDiff cleanups")
struct TextDiffCleanupTests {
    @Test(arguments: [
        ([], []),
        // Already merged: unchanged.
        ([.equal("a"), .delete("b"), .insert("c")], [.equal("a"), .delete("b"), .insert("c")]),
        ([.equal("a"), .equal("b"), .equal("c")], [.equal("abc")]),
        ([.delete("a"), .delete("b"), .delete("c")], [.delete("abc")]),
        ([.insert("a"), .insert("b"), .insert("c")], [.insert("abc")]),
        // Interleaved changes: deletions first.
        ([.delete("a"), .insert("b"), .delete("c"), .insert("d"), .equal("e"), .equal("f")],
         [.delete("ac"), .insert("bd"), .equal("ef")]),
        // Shared prefix and suffix of a deletion and an insertion.
        ([.delete("a"), .insert("abc"), .delete("dc")], [.equal("a"), .delete("d"), .insert("b"), .equal("c")]),
        ([.equal("x"), .delete("a"), .insert("abc"), .delete("dc"), .equal("y")],
         [.equal("xa"), .delete("d"), .insert("b"), .equal("cy")]),
        // Sliding a lone change over an equality.
        ([.equal("a"), .insert("ba"), .equal("c")], [.insert("ab"), .equal("ac")]),
        ([.equal("c"), .insert("ab"), .equal("a")], [.equal("ca"), .insert("ba")]),
        ([.equal("a"), .delete("b"), .equal("c"), .delete("ac"), .equal("x")], [.delete("abc"), .equal("acx")]),
        ([.equal("x"), .delete("ca"), .equal("c"), .delete("b"), .equal("a")], [.equal("xca"), .delete("cba")]),
        // Empty edits disappear.
        ([.delete("b"), .insert("ab"), .equal("c")], [.insert("a"), .equal("bc")]),
        ([.equal(""), .insert("a"), .equal("b")], [.insert("a"), .equal("b")]),
        ([.equal("a"), .insert(""), .equal("b")], [.equal("ab")]),
    ] as [([TextEdit], [TextEdit])])
    func merge(edits: [TextEdit], expected: [TextEdit]) {
        var diff = TextDiff(edits)
        diff.mergeAdjacentEdits()
        #expect(diff.edits == expected)
    }

    @Test(arguments: [
        ([], []),
        // Blank lines beat line breaks, which beat word boundaries.
        ([.equal("AAA\r\n\r\nBBB"), .insert("\r\nDDD\r\n\r\nBBB"), .equal("\r\nEEE")],
         [.equal("AAA\r\n\r\n"), .insert("BBB\r\nDDD\r\n\r\n"), .equal("BBB\r\nEEE")]),
        ([.equal("AAA\r\nBBB"), .insert(" DDD\r\nBBB"), .equal(" EEE")],
         [.equal("AAA\r\n"), .insert("BBB DDD\r\n"), .equal("BBB EEE")]),
        ([.equal("The c"), .insert("ow and the c"), .equal("at.")],
         [.equal("The "), .insert("cow and the "), .equal("cat.")]),
        ([.equal("The-c"), .insert("ow-and-the-c"), .equal("at.")],
         [.equal("The-"), .insert("cow-and-the-"), .equal("cat.")]),
        // The edges of the text are the best boundaries of all.
        ([.equal("a"), .delete("a"), .equal("ax")], [.delete("a"), .equal("aax")]),
        ([.equal("xa"), .delete("a"), .equal("a")], [.equal("xaa"), .delete("a")]),
        ([.equal("The xxx. The "), .insert("zzz. The "), .equal("yyy.")],
         [.equal("The xxx."), .insert(" The zzz."), .equal(" The yyy.")]),
        // Letters with accents are letters.
        ([.equal("Un café c"), .insert("rème et un c"), .equal("afé")],
         [.equal("Un café "), .insert("crème et un "), .equal("café")]),
        // At a tie the later place wins; a combining accent stays with its letter either way.
        ([.equal("e"), .insert("\u{301}e"), .equal("\u{301}")], [.equal("e\u{301}"), .insert("e\u{301}")]),
        // Never around a zero-width joiner, which would split an emoji sequence.
        ([.equal("x👩"), .insert("\u{200D}👦👩"), .equal("\u{200D}y")],
         [.equal("x"), .insert("👩\u{200D}👦"), .equal("👩\u{200D}y")]),
    ] as [([TextEdit], [TextEdit])])
    func alignToWordBoundaries(edits: [TextEdit], expected: [TextEdit]) {
        var diff = TextDiff(edits)
        diff.alignToWordBoundaries()
        #expect(diff.edits == expected)
    }

    @Test(arguments: [
        ([], []),
        // Equalities longer than the changes around them stay.
        ([.delete("ab"), .insert("cd"), .equal("12"), .delete("e")], [.delete("ab"), .insert("cd"), .equal("12"), .delete("e")]),
        ([.delete("abc"), .insert("ABC"), .equal("1234"), .delete("wxyz")],
         [.delete("abc"), .insert("ABC"), .equal("1234"), .delete("wxyz")]),
        ([.delete("a"), .equal("b"), .delete("c")], [.delete("abc"), .insert("b")]),
        // Eliminating one equality makes the one before it small enough too.
        ([.delete("ab"), .equal("cd"), .delete("e"), .equal("f"), .insert("g")], [.delete("abcdef"), .insert("cdfg")]),
        ([.insert("1"), .equal("A"), .delete("B"), .insert("2"), .equal("_"), .insert("1"), .equal("A"), .delete("B"), .insert("2")],
         [.delete("AB_AB"), .insert("1A2_1A2")]),
        ([.equal("The c"), .delete("ow and the c"), .equal("at.")], [.equal("The "), .delete("cow and the "), .equal("cat.")]),
        // Overlaps of a deletion and an insertion are kept when they are large enough.
        ([.delete("abcxx"), .insert("xxdef")], [.delete("abcxx"), .insert("xxdef")]),
        ([.delete("abcxxx"), .insert("xxxdef")], [.delete("abc"), .equal("xxx"), .insert("def")]),
        ([.delete("xxxabc"), .insert("defxxx")], [.insert("def"), .equal("xxx"), .delete("abc")]),
        ([.delete("abcd1212"), .insert("1212efghi"), .equal("----"), .delete("A3"), .insert("3BC")],
         [.delete("abcd"), .equal("1212"), .insert("efghi"), .equal("----"), .delete("A"), .equal("3"), .insert("BC")]),
    ] as [([TextEdit], [TextEdit])])
    func cleanUpSemantically(edits: [TextEdit], expected: [TextEdit]) {
        var diff = TextDiff(edits)
        diff.cleanUpSemantically()
        #expect(diff.edits == expected)
    }

    @Test(arguments: [
        ([], [], 4),
        ([.delete("ab"), .insert("12"), .equal("wxyz"), .delete("cd"), .insert("34")],
         [.delete("ab"), .insert("12"), .equal("wxyz"), .delete("cd"), .insert("34")], 4),
        // Changes of all four kinds around an equality shorter than the edit cost.
        ([.delete("ab"), .insert("12"), .equal("xyz"), .delete("cd"), .insert("34")],
         [.delete("abxyzcd"), .insert("12xyz34")], 4),
        // Three kinds around an equality shorter than half the edit cost.
        ([.insert("12"), .equal("x"), .delete("cd"), .insert("34")], [.delete("xcd"), .insert("12x34")], 4),
        ([.delete("ab"), .insert("12"), .equal("xy"), .insert("34"), .equal("z"), .delete("cd"), .insert("56")],
         [.delete("abxyzcd"), .insert("12xy34z56")], 4),
        // A higher edit cost eliminates longer equalities.
        ([.delete("ab"), .insert("12"), .equal("wxyz"), .delete("cd"), .insert("34")],
         [.delete("abwxyzcd"), .insert("12wxyz34")], 5),
    ] as [([TextEdit], [TextEdit], Int)])
    func cleanUpForEfficiency(edits: [TextEdit], expected: [TextEdit], editCost: Int) {
        var diff = TextDiff(edits)
        diff.cleanUpForEfficiency(editCost: editCost)
        #expect(diff.edits == expected)
    }
}
