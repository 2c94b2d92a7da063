import LockstepCore
import PropertyBased
import Testing

@Suite("JSON parse and serialize")
struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(parsing: #" {"s":"x\ny\u00e9\ud83d\ude00","i":-42,"f":1.5,"e":1e3,"t":true,"n":null,"a":[1,[]],"o":{}} "#)
        #expect(value == [
            "s": .string("x\nyé😀"), "i": -42, "f": 1.5, "e": 1000.0, "t": true, "n": nil, "a": [1, []], "o": [:],
        ])
    }

    @Test func keepsIntegersAndFloatingNumbersApart() throws {
        #expect(try JSONValue(parsing: "1") == .integer(1))
        #expect(try JSONValue(parsing: "1.0") == .number(1))
        #expect(JSONValue.number(1).description == "1.0")
        #expect(try JSONValue(parsing: "9223372036854775807") == .integer(.max))
        #expect(try JSONValue(parsing: "9223372036854775808") == .number(9_223_372_036_854_775_808))
        #expect(try JSONValue(parsing: "-0") == .integer(0))
    }

    @Test func writesMembersInAStableOrder() throws {
        let value: JSONValue = ["b": 1, "a": ["z": true, "é": false, "A": nil]]
        #expect(value.description == #"{"a":{"A":null,"z":true,"é":false},"b":1}"#)
        #expect(JSONSerializer(prettyPrinted: true).string(["a": [1]]) == "{\n  \"a\": [\n    1\n  ]\n}")
    }

    @Test func aNameGivenTwiceKeepsItsLastValueAtEveryDepth() throws {
        let value = try JSONValue(parsing: #"{"a":1,"b":{"c":[{"d":1,"d":{"e":2,"e":3}}],"c":4,"f":5},"a":{"g":6},"h":{}}"#)
        #expect(value == ["a": ["g": 6], "b": ["c": 4, "f": 5], "h": [:]])
        let nested = try JSONValue(parsing: #"{"x":{"y":1,"y":2},"z":[{"y":3},{"y":4,"y":5}]}"#)
        #expect(nested == ["x": ["y": 2], "z": [["y": 3], ["y": 5]]])
    }

    @Test func escapesWhatJSONRequires() {
        #expect(JSONValue.string("a\"b\\c\n\u{1}\u{7F}é").description == #""a\"b\\c\n\u0001"# + "\u{7F}é\"")
    }

    @Test func stringsCompareByScalarsNotCanonicalEquivalence() {
        #expect(JSONValue.string("é") != JSONValue.string("e\u{301}"))
        #expect(JSONValue.string("é") == JSONValue.string("é"))
    }

    @Test(arguments: [
        ("", "line 1, column 1: unexpected end of input, expected a value"),
        ("{\"a\":1,}", "line 1, column 8: expected a member name in double quotes"),
        ("[1 2]", "line 1, column 4: expected ',' or ']' after an array element"),
        ("{\n  \"a\" 1}", "line 2, column 7: expected ':' after the member name \"a\""),
        ("01", "line 1, column 2: a number may not start with a leading zero"),
        ("\"\\ud800\"", "line 1, column 2: lone surrogate \\uD800 in a string"),
        ("\"\\udc00x\"", "line 1, column 2: lone surrogate \\uDC00 in a string"),
        ("\"a\tb\"", "line 1, column 3: control character byte 0x9 in a string must be escaped"),
        ("\"\\x\"", "line 1, column 2: invalid escape sequence \\x in a string"),
        ("tru", "line 1, column 1: unexpected end of input, expected true"),
        ("[1] x", "line 1, column 5: unexpected data after the JSON value"),
        ("1e999", "line 1, column 1: the number 1e999 is out of range"),
        ("// c\n1", "line 1, column 1: unexpected '/', expected a value"),
    ])
    func refusesInvalidInputWithAPosition(input: String, message: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: input) }
        do {
            _ = try JSONValue(parsing: input)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func refusesInvalidUTF8() throws {
        // A bad sequence, a lone continuation byte after ASCII, one after an escape, a name's.
        for bytes: [UInt8] in [[0x22, 0xC3, 0x28, 0x22], [0x22, 0x61, 0x80, 0x22], [0x22, 0x5C, 0x6E, 0xFF, 0x22], [0x7B, 0x22, 0xC3, 0x22, 0x3A, 0x31, 0x7D]] {
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: bytes) }
        }
        #expect(try JSONValue(parsing: [0x22, 0x61, 0xC3, 0xA9, 0x22]) == .string("aé"))
    }

    @Test func refusesNestingPastTheLimit() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(try JSONParser(maximumDepth: 100).parse(fine) != nil)
    }

    @Test func roundTripsRandomDocuments() async {
        await propertyCheck(count: 300, input: JSONGen.object) { object throws in
            let value = JSONValue.object(object)
            let text = value.description
            #expect(try JSONValue(parsing: text) == value)
            #expect(try JSONValue(parsing: JSONSerializer(prettyPrinted: true).string(value)) == value)
        }
    }

    @Test func bridgesToCodable() throws {
        struct Note: Codable, Equatable {
            var title: String
            var count: Int
            var tags: [String]
        }
        let note = Note(title: "猫", count: 3, tags: ["a"])
        let value = try JSONValue(encoding: note)
        #expect(value == ["title": "猫", "count": 3, "tags": ["a"]])
        #expect(try value.decode(Note.self) == note)
    }
}
