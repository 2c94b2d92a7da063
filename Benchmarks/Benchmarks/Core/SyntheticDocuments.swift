import LockstepCore

/// Deterministic documents for benchmarks: records with text, numbers, flags and lists, and
/// two independent edits of each.
enum SyntheticDocuments {
    struct Pair {
        var base: JSONObject
        var mine: JSONObject
        var theirs: JSONObject
    }

    static let words = "the quick brown fox jumps over a lazy dog while seven movers carry boxes of books into the new house".split(separator: " ").map(String.init)

    static func sentence(_ seed: Int, words count: Int) -> String {
        (0..<count).map { words[($0 * 7 + seed * 13) % words.count] }.joined(separator: " ")
    }

    static func record(_ index: Int) -> JSONValue {
        [
            "title": .string("Item \(index): " + sentence(index, words: 8)),
            "notes": .string(sentence(index + 1, words: 40)),
            "count": .integer(Int64(index)),
            "price": .number(Double(index) * 1.25),
            "done": .bool(index % 3 == 0),
            "tags": .array((0..<3).map { .string(words[($0 + index) % words.count]) }),
        ]
    }

    static func pair(approximateBytes: Int) -> Pair {
        let recordBytes = record(0).jsonBytes.count
        let count = max(1, (approximateBytes + recordBytes / 2) / (recordBytes + 8))
        var base = JSONObject()
        for index in 0..<count { base["r\(index)"] = record(index) }
        var mine = base
        var theirs = base
        for index in stride(from: 0, to: count, by: max(1, count / 4)) {
            var edited = mine["r\(index)"]!.objectValue!
            edited["title"] = .string(edited["title"]!.stringValue! + " (checked)")
            edited["count"] = .integer(Int64(index + 1))
            mine["r\(index)"] = .object(edited)
            var other = theirs["r\(index)"]!.objectValue!
            other["notes"] = .string("Urgent. " + other["notes"]!.stringValue!)
            other["done"] = .bool(true)
            theirs["r\(index)"] = .object(other)
        }
        mine["added"] = .string("a new member")
        return Pair(base: base, mine: mine, theirs: theirs)
    }

    static func textEdit(approximateBytes: Int) -> Pair {
        var paragraphs: [String] = []
        var index = 0
        while paragraphs.reduce(0, { $0 + $1.utf8.count + 2 }) < approximateBytes {
            paragraphs.append(sentence(index, words: 60))
            index += 1
        }
        let text = paragraphs.joined(separator: "\n\n")
        var mine = paragraphs
        mine[paragraphs.count / 2] = mine[paragraphs.count / 2].replacingOccurrences(of: "quick", with: "swift")
        var theirs = paragraphs
        theirs[paragraphs.count / 4] = "Edited elsewhere. " + theirs[paragraphs.count / 4]
        return Pair(
            base: ["text": .string(text)], mine: ["text": .string(mine.joined(separator: "\n\n"))],
            theirs: ["text": .string(theirs.joined(separator: "\n\n"))])
    }
}
