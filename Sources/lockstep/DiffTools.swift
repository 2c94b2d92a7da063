import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepCore

/// Reads a JSON file (or `-` for standard input) for the diff tools.
private func readJSON(_ path: String) throws -> JSONValue {
    let data: Data
    if path == "-" {
        data = FileHandle.standardInput.readDataToEndOfFile()
    } else if let contents = FileManager.default.contents(atPath: path) {
        data = contents
    } else {
        // Foundation's own error here is an NSError dump; say what the user can fix.
        throw CommandError("cannot read \(path): no such file, or not readable (give a JSON file, or - for standard input)")
    }
    do {
        return try JSONValue(parsing: data)
    } catch {
        throw CommandError("\(path): \(error)")
    }
}

private func readObject(_ path: String) throws -> JSONObject {
    guard case .object(let members) = try readJSON(path) else { throw CommandError("\(path) must hold a JSON object") }
    return members
}

private func readDiff(_ path: String) throws -> ObjectDiff {
    var json = try readJSON(path)
    // Accept a bare diff, or a whole change ({"o":"M","v":{…}}) as clients send it.
    if case .object(let fields) = json, case .string("M")? = fields["o"], let inner = fields["v"] { json = inner }
    do {
        return try ObjectDiff(json: json)
    } catch {
        throw CommandError("\(path): \(error)")
    }
}

private func printJSON(_ value: JSONValue) {
    print(JSONSerializer(prettyPrinted: true).string(value))
}

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff", abstract: "Print the jsondiff that turns object A into object B.")

    @Argument(help: "The object before (a JSON file, or - for standard input).")
    var before: String
    @Argument(help: "The object after.")
    var after: String

    func run() throws {
        printJSON(ObjectDiff(from: try readObject(before), to: try readObject(after)).json)
    }
}

struct PatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patch", abstract: "Apply a jsondiff to an object and print the result.")

    @Argument(help: "The object (a JSON file, or - for standard input).")
    var object: String
    @Argument(help: "The diff.")
    var diff: String

    func run() throws {
        do {
            printJSON(.object(try readDiff(diff).apply(to: try readObject(object))))
        } catch let error as DiffError {
            throw CommandError("the diff does not apply \(error)")
        }
    }
}

struct TransformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transform",
        abstract: "Show how two concurrent diffs of one object merge, in both orders.",
        discussion: """
            Both diffs were made against BASE. Prints A rebased over B, and the object after B then A; \
            the same the other way round; and whether the two orders agree. Where they collide, \
            --winner decides who keeps the value (by default the later arrival, A over B, as Simperium does).
            """)

    @Argument(help: "The object both diffs were made against.")
    var base: String
    @Argument(help: "The first diff (A).")
    var first: String
    @Argument(help: "The second diff (B).")
    var second: String

    @Option(help: "Who wins collisions: a, b, or incoming (each rebased diff wins, as on a Simperium server).")
    var winner: String = "incoming"

    func run() throws {
        let base = try readObject(base)
        let a = try readDiff(first)
        let b = try readDiff(second)
        let aWinner: ConflictWinner
        let bWinner: ConflictWinner
        switch winner {
        case "a": (aWinner, bWinner) = (.incoming, .applied)
        case "b": (aWinner, bWinner) = (.applied, .incoming)
        case "incoming": (aWinner, bWinner) = (.incoming, .incoming)
        default: throw ValidationError("--winner must be a, b or incoming")
        }
        do {
            let aRebased = try a.transformed(over: b, base: base, winner: aWinner)
            let bRebased = try b.transformed(over: a, base: base, winner: bWinner)
            let bThenA = try aRebased.apply(to: try b.apply(to: base))
            let aThenB = try bRebased.apply(to: try a.apply(to: base))
            printJSON([
                "a_over_b": aRebased.json, "b_then_a": .object(bThenA),
                "b_over_a": bRebased.json, "a_then_b": .object(aThenB),
                "orders_agree": .bool(bThenA == aThenB),
            ])
        } catch {
            throw CommandError("the diffs do not fit the base \(error)")
        }
    }
}
