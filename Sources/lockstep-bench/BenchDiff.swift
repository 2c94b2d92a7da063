import ArgumentParser
import Foundation
import LockstepCore

/// `lockstep-bench diff`: jsondiff make / apply / transform throughput on objects of 1 KB,
/// 10 KB and 1 MB, and a one-word edit in a 100 KB text, each against a baseline measured in
/// the same run (serializing the object to JSON), so the ratio holds on a noisy machine.
struct BenchDiff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff", abstract: "Diff, apply and transform throughput of LockstepCore's jsondiff.")

    @Option(help: "Rounds per measurement; the median is printed.")
    var rounds = 5

    func run() throws {
        #if DEBUG
        print("warning: a debug build; build with -c release for meaningful figures")
        #endif
        print("case                      size      serialize   diff (×ser)          apply (×ser)         transform (×ser)")
        for (name, size) in [("object 1 KB", 1_000), ("object 10 KB", 10_000), ("object 1 MB", 1_000_000)] {
            try measure(name, SyntheticDocuments.pair(approximateBytes: size))
        }
        try measure("one word in 100 KB text", SyntheticDocuments.textEdit(approximateBytes: 100_000))
    }

    private func measure(_ name: String, _ documents: SyntheticDocuments.Pair) throws {
        let (base, mine, theirs) = (documents.base, documents.mine, documents.theirs)
        let bytes = JSONValue.object(base).jsonBytes.count
        let serialize = Measure.secondsPerCall(rounds: rounds) { _ = JSONValue.object(base).jsonBytes }
        let diff = Measure.secondsPerCall(rounds: rounds) { _ = ObjectDiff(from: base, to: mine) }
        let myDiff = ObjectDiff(from: base, to: mine)
        let theirDiff = ObjectDiff(from: base, to: theirs)
        guard try myDiff.apply(to: base) == mine else { throw ValidationError("apply did not give the target") }
        let apply = try Measure.secondsPerCall(rounds: rounds) { _ = try myDiff.apply(to: base) }
        let transform = try Measure.secondsPerCall(rounds: rounds) {
            _ = try myDiff.transformed(over: theirDiff, base: base, winner: .incoming)
        }
        func cell(_ seconds: Double) -> String {
            "\(Measure.format(seconds: seconds)) (\(String(format: "%.2f", seconds / serialize)))".padding(toLength: 21, withPad: " ", startingAt: 0)
        }
        print(
            name.padding(toLength: 26, withPad: " ", startingAt: 0)
                + String(format: "%.1f KB", Double(bytes) / 1000).padding(toLength: 10, withPad: " ", startingAt: 0)
                + Measure.format(seconds: serialize).padding(toLength: 12, withPad: " ", startingAt: 0)
                + cell(diff) + cell(apply) + cell(transform))
    }
}

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
