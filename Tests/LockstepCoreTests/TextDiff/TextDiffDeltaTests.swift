import Testing
@testable import LockstepCore

@Suite("TextDiff delta format")
struct TextDiffDeltaTests {
    @Test func classicDelta() throws {
        let diff = TextDiff([.equal("jump"), .delete("s"), .insert("ed"), .equal(" over "), .delete("the"), .insert("a"),
                             .equal(" lazy"), .insert("old dog")])
        #expect(diff.delta == "=4\t-1\t+ed\t=6\t-3\t+a\t=5\t+old dog")
        #expect(try TextDiff(delta: diff.delta, source: "jumps over the lazy") == diff)
    }

    @Test func escaping() throws {
        let diff = TextDiff([.equal("\u{0680} \u{0} \t %"), .delete("\u{0681} \u{1} \n ^"), .insert("\u{0682} \u{2} \\ |")])
        #expect(diff.delta == "=7\t-7\t+%DA%82 %02 %5C %7C")
        #expect(try TextDiff(delta: diff.delta, source: diff.source) == diff)
    }

    @Test func unescapedCharacters() throws {
        let diff = TextDiff([.insert("A-Z a-z 0-9 - _ . ! ~ * ' ( ) ; / ? : @ & = + $ , # ")])
        #expect(diff.delta == "+A-Z a-z 0-9 - _ . ! ~ * ' ( ) ; / ? : @ & = + $ , # ")
        #expect(try TextDiff(delta: diff.delta, source: "") == diff)
    }

    @Test func decodingIsLenient() throws {
        // Any escape decodes, in either case, reserved characters included; "+" stays "+".
        #expect(try TextDiff(delta: "+%23%2b%c3%a9+ %20", source: "").target == "#+é+  ")
        // Unescaped non-ASCII passes through, and empty tokens are skipped.
        #expect(try TextDiff(delta: "=1\t\t+é\t", source: "a").target == "aé")
        #expect(try TextDiff(delta: "", source: "").edits == [])
        #expect(try TextDiff(delta: "=0\t+\t-0\t=3", source: "abc").edits == [.equal("abc")])
    }

    @Test func countsAreUTF16() throws {
        #expect(TextDelta.make(from: "a😀b", to: "a😀bc") == "=4\t+c")
        // U+1F600 and U+1F601 differ only in their low surrogate; the delta replaces both halves.
        #expect(TextDelta.make(from: "a😀", to: "a😁") == "=1\t-2\t+%F0%9F%98%81")
        #expect(try TextDiff(delta: "=1\t-2\t=1", source: "a😀b").target == "ab")
        #expect(try TextDiff(delta: "=3\t+%F0%9F%91%8D", source: "😀x").target == "😀x👍")
    }

    @Test(arguments: [
        ("=5", "abc", TextDeltaError.Reason.lengthMismatch(deltaLength: 5, sourceLength: 3)),
        ("=2\t-1\t=1", "abc", .lengthMismatch(deltaLength: 4, sourceLength: 3)),
        ("=1\t=1", "😀", .splitsSurrogatePair(utf16Offset: 1)),
        ("=2\t-1\t=2", "a😀😀", .splitsSurrogatePair(utf16Offset: 2)),
        ("-3\t=2", "😀😀x", .splitsSurrogatePair(utf16Offset: 3)),
        ("*3", "abc", .unknownOperation(token: "*3")),
        (" =3", "abc", .unknownOperation(token: " =3")),
        ("=", "", .invalidCount(token: "=")),
        ("=-1\t=4", "abc", .invalidCount(token: "=-1")),
        ("--1", "", .invalidCount(token: "--1")),
        ("=3x", "abc", .invalidCount(token: "=3x")),
        ("=+3", "abc", .invalidCount(token: "=+3")),
        ("=99999999999999999999", "abc", .invalidCount(token: "=99999999999999999999")),
        ("=3\t+%", "abc", .invalidEscape(token: "+%")),
        ("+%c3%xy", "", .invalidEscape(token: "+%c3%xy")),
        ("+%C3", "", .invalidUTF8(token: "+%C3")),
        ("+%FF", "", .invalidUTF8(token: "+%FF")),
        ("+%ED%A0%80", "", .invalidUTF8(token: "+%ED%A0%80")),  // A lone surrogate.
        ("+%C0%80", "", .invalidUTF8(token: "+%C0%80")),  // An overlong NUL.
    ] as [(String, String, TextDeltaError.Reason)])
    func malformedDeltas(delta: String, source: String, reason: TextDeltaError.Reason) {
        #expect(throws: TextDeltaError(reason)) {
            try TextDiff(delta: delta, source: source)
        }
    }

    @Test func errorMessages() {
        #expect(TextDeltaError(.lengthMismatch(deltaLength: 5, sourceLength: 2)).description
            == "delta length 5 does not equal source text length 2")
        let long = "+" + String(repeating: "x", count: 100) + "%"
        #expect(throws: TextDeltaError(.invalidEscape(token: "+" + String(repeating: "x", count: 39) + "…"))) {
            try TextDiff(delta: long, source: "")
        }
    }
}
