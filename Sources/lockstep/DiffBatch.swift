import ArgumentParser
import Foundation
import LockstepCore

/// Answers jsondiff requests read as JSON lines, one answer a line: how another implementation
/// of the diff (lockstep.js, in `Clients/JavaScript`) compares its bytes with LockstepCore's
/// over thousands of generated documents in one process.
struct DiffBatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff-batch",
        abstract: "Answer jsondiff requests read as JSON lines from standard input, one answer a line.",
        discussion: """
            Each line is one request; each answer is LockstepCore's compact JSON, or {"error": "…"}:
              {"op":"diff","a":{…},"b":{…},"schema":{…}?}          the diff from a to b
              {"op":"apply","object":{…},"diff":{…}}                the object the diff makes
              {"op":"transform","base":{…},"a":{…},"b":{…},"winner":"incoming"|"applied"}   a rebased over b
              {"op":"delta","a":"…","b":"…"}                        the text delta from a to b
              {"op":"apply-delta","text":"…","delta":"…"}           the text the delta makes
              {"op":"merge-text","base":"…","edited":"…","current":"…"}   base→edited carried onto current, or null
              {"op":"serialize","value":…}                          the value as the serializer writes it
            """)

    func run() throws {
        while let line = readLine(strippingNewline: true) {
            guard !line.isEmpty else { continue }
            print(JSONSerializer().string(Self.answer(line)))
        }
    }

    static func answer(_ line: String) -> JSONValue {
        do {
            let request = try JSONValue(parsing: line)
            switch request["op"]?.stringValue {
            case "diff":
                let schema = try request["schema"].map { try DiffSchema(json: $0) }
                return ObjectDiff(from: try object(request, "a"), to: try object(request, "b"), schema: schema).json
            case "apply":
                return .object(try ObjectDiff(json: try value(request, "diff")).apply(to: try object(request, "object")))
            case "transform":
                let winner: ConflictWinner = request["winner"]?.stringValue == "applied" ? .applied : .incoming
                let a = try ObjectDiff(json: try value(request, "a"))
                let b = try ObjectDiff(json: try value(request, "b"))
                return try a.transformed(over: b, base: try object(request, "base"), winner: winner).json
            case "delta":
                return .string(TextDelta.make(from: try string(request, "a"), to: try string(request, "b")))
            case "apply-delta":
                return .string(try TextDelta.apply(try string(request, "delta"), to: try string(request, "text")))
            case "merge-text":
                return TextDelta.merge(
                    from: try string(request, "base"), to: try string(request, "edited"), into: try string(request, "current")
                ).map(JSONValue.string) ?? .null
            case "serialize":
                return try value(request, "value")
            default:
                return ["error": "unknown op"]
            }
        } catch {
            return ["error": .string("\(error)")]
        }
    }

    private static func value(_ request: JSONValue, _ name: String) throws -> JSONValue {
        guard let value = request[name] else { throw ValidationError("the request has no \(name)") }
        return value
    }

    private static func object(_ request: JSONValue, _ name: String) throws -> JSONObject {
        guard let object = try value(request, name).objectValue else { throw ValidationError("\(name) must be an object") }
        return object
    }

    private static func string(_ request: JSONValue, _ name: String) throws -> String {
        guard let text = try value(request, name).stringValue else { throw ValidationError("\(name) must be a string") }
        return text
    }
}
