import LockstepClient
import LockstepCore
import PropertyBased

/// What an older version of an app models of a shopping-list entry: members at the top, a
/// nested object, an optional, and a list of nested objects. The objects it meets hold more
/// (see ``TypedWriteCase``).
struct Listing: Codable, Sendable, Equatable {
    struct Details: Codable, Sendable, Equatable {
        var color: String
        var size: Int?
    }

    struct Line: Codable, Sendable, Equatable {
        var id: String
        var label: String
        var count: Int
    }

    var name: String
    var quantity: Int
    var done: Bool
    var note: String?
    var details: Details
    var lines: [Line]
}

/// A stored object that holds a ``Listing`` and members the type does not model (as a newer
/// version of the app, a web page or an attachment would add them: at the top, inside the
/// nested object, inside each line), and a typed edit the older app makes to it.
struct TypedWriteCase: Sendable, CustomStringConvertible {
    /// The object as stored before the edit.
    var stored: JSONObject
    /// The members `Listing` does not model, by path: `extra-…`, `details.extra-…`, and each
    /// line's by its id.
    var extras: JSONObject
    var detailsExtras: JSONObject
    var lineExtras: [String: JSONObject]
    /// The value after the edit.
    var edited: Listing
    /// Whether the edit goes through ``TypedBucket/put(_:_:priority:)`` with the edited value,
    /// or ``TypedBucket/update(_:priority:_:)``.
    var throughPut: Bool

    var description: String { "stored \(JSONValue.object(stored)), edited to \(edited), \(throughPut ? "put" : "update")" }

    /// What is wrong with `object` after the edit, or `nil`: it must read as ``edited``, hold
    /// every member `Listing` does not model as it was (a line the edit removed takes its own
    /// with it), and give a line the edit added none of another line's.
    func violation(in object: JSONObject) -> String? {
        guard let value = try? JSONValue.object(object).decode(Listing.self) else { return "not a Listing" }
        if value != edited { return "reads as \(value)" }
        for (name, value) in extras where object[name] != value { return "\(name) lost" }
        for (name, value) in detailsExtras where object["details"]?[name] != value { return "details.\(name) lost" }
        for line in object["lines"]?.arrayValue ?? [] {
            let id = line["id"]?.stringValue ?? ""
            let extras = lineExtras[id] ?? [:]
            for (name, value) in extras where line[name] != value { return "lines[\(id)].\(name) lost" }
            let held = line.objectValue?.keys.filter { $0.hasPrefix("extra-") } ?? []
            if Set(held) != Set(extras.keys) { return "lines[\(id)] holds \(held.sorted()), not \(extras.keys.sorted())" }
        }
        return nil
    }

    /// A random case: a random listing with random extra members, and one to three random edits.
    static func random(using random: inout Xoshiro) -> TypedWriteCase {
        var ids = 0
        func newLine() -> Listing.Line {
            ids += 1
            return Listing.Line(id: "line-\(ids)", label: word(&random), count: Int.random(in: 0...9, using: &random))
        }
        let original = Listing(
            name: word(&random), quantity: Int.random(in: 0...20, using: &random), done: Bool.random(using: &random),
            note: Bool.random(using: &random) ? word(&random) : nil,
            details: Listing.Details(color: word(&random), size: Bool.random(using: &random) ? Int.random(in: 1...5, using: &random) : nil),
            lines: (0..<Int.random(in: 0...4, using: &random)).map { _ in newLine() })
        let extras = extraMembers(&random)
        let detailsExtras = extraMembers(&random)
        var lineExtras: [String: JSONObject] = [:]
        var stored = try! JSONValue(encoding: original).objectValue!
        stored.merge(extras) { typed, _ in typed }
        stored["details"] = .object(stored["details"]!.objectValue!.merging(detailsExtras) { typed, _ in typed })
        stored["lines"] = .array(original.lines.map { line in
            let extras = extraMembers(&random)
            lineExtras[line.id] = extras
            return .object(try! JSONValue(encoding: line).objectValue!.merging(extras) { typed, _ in typed })
        })

        var edited = original
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0: edited.name = word(&random)
            case 1: edited.quantity = Int.random(in: 0...20, using: &random)
            case 2: edited.done.toggle()
            case 3: edited.note = edited.note == nil ? word(&random) : nil
            case 4: edited.details.color = word(&random)
            case 5: edited.details.size = edited.details.size == nil ? Int.random(in: 1...5, using: &random) : nil
            case 6 where !edited.lines.isEmpty:
                edited.lines[Int.random(in: 0..<edited.lines.count, using: &random)].count = Int.random(in: 10...19, using: &random)
            case 7 where !edited.lines.isEmpty: edited.lines.remove(at: Int.random(in: 0..<edited.lines.count, using: &random))
            case 8 where edited.lines.count > 1: edited.lines.swapAt(0, edited.lines.count - 1)
            default: edited.lines.insert(newLine(), at: Int.random(in: 0...edited.lines.count, using: &random))
            }
        }
        return TypedWriteCase(
            stored: stored, extras: extras, detailsExtras: detailsExtras, lineExtras: lineExtras, edited: edited,
            throughPut: Bool.random(using: &random))
    }

    /// Zero to three members named `extra-…`, each a random JSON value (objects and lists too).
    private static func extraMembers(_ random: inout Xoshiro) -> JSONObject {
        var members: JSONObject = [:]
        for index in 0..<Int.random(in: 0...3, using: &random) { members["extra-\(index)-\(word(&random))"] = value(&random, depth: 0) }
        return members
    }

    private static func value(_ random: inout Xoshiro, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth < 2 ? 7 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .integer(Int64.random(in: -1_000...1_000, using: &random))
        case 3: return .number(Double(Int.random(in: -1_000...1_000, using: &random)) / 8)
        case 4: return .string(word(&random))
        case 5: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(&random, depth: depth + 1) })
        default:
            return .object(Dictionary(uniqueKeysWithValues: (0..<Int.random(in: 0...3, using: &random)).map { index in
                ("m\(index)", value(&random, depth: depth + 1))
            }))
        }
    }

    /// A short random word, sometimes with an accent or an emoji.
    private static func word(_ random: inout Xoshiro) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyzé🥛")
        return String((0..<Int.random(in: 1...8, using: &random)).map { _ in letters[Int.random(in: 0..<letters.count, using: &random)] })
    }
}
