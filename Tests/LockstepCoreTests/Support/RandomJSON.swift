import LockstepCore
import PropertyBased

/// Random JSON documents and random edits of them, for property tests.
enum RandomJSON {
    /// Pieces random strings are built from: ASCII, CJK, astral emoji, ZWJ sequences,
    /// combining marks, RTL text and the characters that need escaping in JSON or in deltas.
    static let fragments: [String] = [
        "a", "b", "hello", " ", "world", "\n", "\t", "%", "%20", "+", "#", "\"", "\\", "/",
        "猫", "日本語", "😀", "👩‍👩‍👧", "🇫🇷", "e\u{301}", "\u{301}", "é", "ß", "שלום", "\u{0}", "\u{1F}", "~",
    ]

    static func string<R: RandomNumberGenerator>(using rng: inout R, maxPieces: Int = 8) -> String {
        let count = Int.random(in: 0...maxPieces, using: &rng)
        return (0..<count).map { _ in fragments.randomElement(using: &rng)! }.joined()
    }

    static let names = ["a", "b", "c", "title", "tags", "n", "done", "meta", "日本", "😀", "x.y", ""]

    static func value<R: RandomNumberGenerator>(using rng: inout R, depth: Int = 3) -> JSONValue {
        let kinds = depth > 0 ? 8 : 6
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .integer(Int64.random(in: -1_000_000...1_000_000, using: &rng))
        case 3: return .number(Double(Int.random(in: -10_000...10_000, using: &rng)) / 8 + 0.5)
        case 4, 5: return .string(string(using: &rng))
        case 6:
            return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in value(using: &rng, depth: depth - 1) })
        default:
            return .object(object(using: &rng, depth: depth - 1))
        }
    }

    static func object<R: RandomNumberGenerator>(using rng: inout R, depth: Int = 3) -> JSONObject {
        var members = JSONObject()
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            members[names.randomElement(using: &rng)!] = value(using: &rng, depth: depth)
        }
        return members
    }

    /// A value like `value` with a few random changes: strings edited in place, members
    /// added, removed or replaced, list elements inserted or dropped.
    static func edit<R: RandomNumberGenerator>(_ value: JSONValue, using rng: inout R, depth: Int = 3) -> JSONValue {
        switch value {
        case .string(let text):
            return .string(editText(text, using: &rng))
        case .object(let members):
            return .object(editObject(members, using: &rng, depth: depth))
        case .array(var elements):
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: elements.insert(self.value(using: &rng, depth: 1), at: Int.random(in: 0...elements.count, using: &rng))
            case 1 where !elements.isEmpty: elements.remove(at: Int.random(in: 0..<elements.count, using: &rng))
            case 2 where !elements.isEmpty:
                let index = Int.random(in: 0..<elements.count, using: &rng)
                elements[index] = edit(elements[index], using: &rng, depth: depth - 1)
            default: break
            }
            return .array(elements)
        default:
            return Bool.random(using: &rng) ? value : self.value(using: &rng, depth: 1)
        }
    }

    static func editObject<R: RandomNumberGenerator>(_ members: JSONObject, using rng: inout R, depth: Int = 3) -> JSONObject {
        var result = members
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let name = names.randomElement(using: &rng)!
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: result[name] = nil
            case 1: result[name] = value(using: &rng, depth: 1)
            default:
                if let existing = result[name], depth > 0 {
                    result[name] = edit(existing, using: &rng, depth: depth - 1)
                }
            }
        }
        return result
    }

    static func withoutNewlines(_ text: String) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: text.unicodeScalars.filter { $0 != "\n" })
        return String(view)
    }

    /// The text with a random run replaced by a random string.
    static func editText<R: RandomNumberGenerator>(_ text: String, using rng: inout R) -> String {
        var scalars = Array(text.unicodeScalars)
        let start = Int.random(in: 0...scalars.count, using: &rng)
        let end = Int.random(in: start...min(scalars.count, start + 6), using: &rng)
        scalars.replaceSubrange(start..<end, with: string(using: &rng, maxPieces: 3).unicodeScalars)
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }
}

/// Generators for ``propertyCheck``: each input is a seed-driven random document.
enum JSONGen {
    static var object: Generator<JSONObject, Shrink.None<JSONObject>> {
        Generator { rng in RandomJSON.object(using: &rng) }
    }

    /// A document and an edited copy of it.
    static var objectPair: Generator<(JSONObject, JSONObject), Shrink.None<(JSONObject, JSONObject)>> {
        Generator { rng in
            let base = RandomJSON.object(using: &rng)
            return (base, RandomJSON.editObject(base, using: &rng))
        }
    }

    /// A document and two independent edits of it.
    static var objectTriple: Generator<(JSONObject, JSONObject, JSONObject), Shrink.None<(JSONObject, JSONObject, JSONObject)>> {
        Generator { rng in
            let base = RandomJSON.object(using: &rng)
            return (base, RandomJSON.editObject(base, using: &rng), RandomJSON.editObject(base, using: &rng))
        }
    }
}
