/// Writing diffs as jsondiff JSON straight into bytes: the same bytes as
/// `JSONSerializer().bytes(diff.json)`, without building the ``JSONValue`` first.
///
/// Every accepted change's diff is written twice, once to store it and once to announce it,
/// and building its dictionaries (each name hashed, then sorted) cost more than writing it.
extension ObjectDiff {
    /// Appends the diff's compact JSON, members in the order of their names' UTF-8 bytes.
    public func appendJSON(to output: inout [UInt8]) {
        guard !operations.isEmpty else { return output.appendLiteral("{}") }
        output.append(UInt8(ascii: "{"))
        for (offset, member) in operations.sorted(by: { JSONSerializer.utf8Order($0.key, $1.key) }).enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            JSONSerializer.appendString(member.key, to: &output)
            output.append(UInt8(ascii: ":"))
            member.value.appendJSON(to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// The diff's compact JSON text.
    public var jsonText: String {
        var output: [UInt8] = []
        output.reserveCapacity(64)
        appendJSON(to: &output)
        return String(decoding: output, as: UTF8.self)
    }
}

extension ListDiff {
    func appendJSON(to output: inout [UInt8]) {
        guard !operations.isEmpty else { return output.appendLiteral("{}") }
        output.append(UInt8(ascii: "{"))
        // Names are decimal indexes, ordered as text ("10" before "9"), as the serializer orders them.
        let members = operations.map { (name: String($0.key), operation: $0.value) }.sorted { JSONSerializer.utf8Order($0.name, $1.name) }
        for (offset, member) in members.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            JSONSerializer.appendString(member.name, to: &output)
            output.append(UInt8(ascii: ":"))
            member.operation.appendJSON(to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }
}

extension DiffOperation {
    /// `{"o":code,"v":value}`: "o" sorts before "v".
    func appendJSON(to output: inout [UInt8]) {
        output.appendLiteral(#"{"o":"#)
        JSONSerializer.appendString(code, to: &output)
        switch self {
        case .insert(let value), .replace(let value), .increment(let value):
            output.appendLiteral(#","v":"#)
            JSONSerializer().append(value, to: &output)
        case .remove:
            break
        case .object(let diff):
            output.appendLiteral(#","v":"#)
            diff.appendJSON(to: &output)
        case .list(let diff):
            output.appendLiteral(#","v":"#)
            diff.appendJSON(to: &output)
        case .text(let delta), .listText(let delta):
            output.appendLiteral(#","v":"#)
            JSONSerializer.appendString(delta, to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }
}
