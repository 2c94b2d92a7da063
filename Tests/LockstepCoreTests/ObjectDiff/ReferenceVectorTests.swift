import Foundation
import LockstepCore
import Testing

/// Every vector of Simperium's jsondiff `assertions.json`, run the way its own harnesses run them.
@Suite("jsondiff reference vectors")
struct ReferenceVectorTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        var kind: String
        var name: String
        var inputs: [JSONValue]
        var expected: JSONValue
        var testDescription: String { "\(kind): \(name)" }
    }

    static let vectors: [Vector] = {
        guard let data = try? Fixtures.data("jsondiff-assertions.json"),
            case .array(let rows)? = try? JSONValue(parsing: data)
        else { return [] }
        return rows.compactMap { row in
            guard case .array(let fields) = row, fields.count == 4,
                case .string(let kind) = fields[0], case .string(let name) = fields[1],
                case .array(let inputs) = fields[2]
            else { return nil }
            return Vector(kind: kind, name: name, inputs: inputs, expected: fields[3])
        }
    }()

    @Test func everyVectorIsLoaded() throws {
        #expect(Self.vectors.count == 29)
        if let shared = Fixtures.sharedDirectory {
            let original = try Data(contentsOf: shared.appendingPathComponent("protocol/jsondiff-assertions.json"))
            #expect(try Fixtures.data("jsondiff-assertions.json") == original, "the vendored copy has drifted from shared/")
        }
    }

    @Test(arguments: vectors)
    func vector(_ vector: Vector) throws {
        let schema = try vector.inputs.count > (vector.kind == "diff" ? 2 : 3)
            ? DiffSchema(json: vector.inputs.last!) : nil
        let base = try #require(vector.inputs[0].objectValue)
        switch vector.kind {
        case "diff":
            let target = try #require(vector.inputs[1].objectValue)
            let diff = ObjectDiff(from: base, to: target, schema: schema)
            #expect(DiffOperation.object(diff).json == vector.expected)
            // As the reference harness does: every diff vector is also an apply vector.
            let expectedDiff = try ObjectDiff(json: try #require(vector.expected["v"]))
            #expect(try expectedDiff.apply(to: base) == target)
        case "transform":
            let mine = ObjectDiff(from: base, to: try #require(vector.inputs[1].objectValue), schema: schema)
            let theirs = ObjectDiff(from: base, to: try #require(vector.inputs[2].objectValue), schema: schema)
            let rebased = try mine.transformed(over: theirs, base: base, winner: .incoming)
            let result = try rebased.apply(to: try theirs.apply(to: base))
            #expect(JSONValue.object(result) == vector.expected)
        case "apply_offsets":
            let target = try #require(vector.inputs[1].objectValue)
            #expect(JSONValue.object(try ObjectDiff(from: base, to: target).apply(to: base)) == vector.expected)
        default:
            Issue.record("unknown vector kind \(vector.kind)")
        }
    }
}
