import LockstepCore
import LockstepServer
import PropertyBased
import Testing

/// A change as channels announce it: ``ChangeEvent/wireJSONBytes(extensions:)`` writes the
/// JSON directly, and must give the very bytes that serializing ``ChangeEvent/wireJSON(extensions:)`` gives.
@Suite("Change events on the wire")
struct ChangeWireTests {
    /// Text with what JSON must escape, and what it must not.
    static let text = Gen.element(of: ["a", "Z9", "\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "👨‍👩‍👧", "\t", "/", " "])
        .map { $0 ?? "" }.array(of: 0...5).map { $0.joined() }

    static let diffs: [ObjectDiff?] = [
        nil,
        try! ObjectDiff(json: try! JSONValue(parsing: #"{"title":{"o":"d","v":"=3\t+x"},"n":{"o":"I","v":2}}"#)),
        try! ObjectDiff(json: try! JSONValue(parsing: #"{"tags":{"o":"L","v":{"0":{"o":"+","v":"a\"b"}}},"gone":{"o":"-"}}"#)),
    ]

    @Test("written directly, a change is the bytes its JSON value serializes to")
    func directBytesAreTheValuesBytes() async {
        await propertyCheck(count: 300, input: Self.text, Self.text, Gen.int(in: 0...255)) { key, changeID, choices in
            let change = ChangeRecord(
                sequence: Int64(choices), key: key, operation: choices & 1 == 0 ? .modify : .remove,
                sourceVersion: choices & 2 == 0 ? nil : choices + 1, endVersion: choices + 2, diff: Self.diffs[(choices >> 2) % 3],
                mergedWithoutBase: choices & 16 != 0, clientID: key + changeID, changeID: changeID,
                editTime: choices & 32 == 0 ? nil : Int64(choices) * 1_000_000_007)
            let event = ChangeEvent(
                scope: BucketScope(appID: "app", owner: .shared, bucket: "b"), change: change,
                version: ChangeVersion(epoch: UInt32(choices) * 16_777_259, sequence: Int64(choices) * 3))
            for extensions in [false, true] {
                let direct = event.wireJSONBytes(extensions: extensions)
                let serialized = event.wireJSON(extensions: extensions).jsonBytes
                #expect(direct == serialized, "\(String(decoding: direct, as: UTF8.self)) ≠ \(String(decoding: serialized, as: UTF8.self))")
            }
        }
    }
}
