/// Reading and writing diffs in the jsondiff wire format, `{"key": {"o": "d", "v": "=6\t+!"}}`.
extension ObjectDiff {
    /// Reads an object diff, checking every operation's shape before anything is applied.
    public init(json: JSONValue) throws(DiffError) {
        self = try ObjectDiff(json: json, at: DiffPath())
    }

    init(json: JSONValue, at path: DiffPath) throws(DiffError) {
        guard case .object(let members) = json else {
            throw DiffError(.malformed, at: path, "an object diff must be a JSON object, not \(json.typeName)")
        }
        var operations: [String: DiffOperation] = [:]
        for (name, member) in members {
            operations[name] = try DiffOperation(json: member, at: path.appending(member: name))
        }
        self.init(operations)
    }

    /// The diff as jsondiff JSON.
    public var json: JSONValue {
        .object(operations.mapValues(\.json))
    }
}

extension ListDiff {
    init(json: JSONValue, at path: DiffPath) throws(DiffError) {
        guard case .object(let members) = json else {
            throw DiffError(.malformed, at: path, "a list diff must be a JSON object keyed by index, not \(json.typeName)")
        }
        var operations: [Int: DiffOperation] = [:]
        for (key, member) in members {
            guard let index = Self.index(key) else {
                throw DiffError(.malformed, at: path, "a list diff key must be a non-negative decimal index, not \"\(key)\"")
            }
            operations[index] = try DiffOperation(json: member, at: path.appending(index: index))
        }
        self.init(operations)
    }

    public var json: JSONValue {
        .object(JSONObject(uniqueKeysWithValues: operations.map { (String($0.key), $0.value.json) }))
    }

    private static func index(_ key: String) -> Int? {
        guard !key.isEmpty, key.utf8.count <= 9, key.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int(key)
    }
}

extension DiffOperation {
    public init(json: JSONValue) throws(DiffError) {
        self = try DiffOperation(json: json, at: DiffPath())
    }

    init(json: JSONValue, at path: DiffPath) throws(DiffError) {
        guard case .object(let fields) = json else {
            throw DiffError(.malformed, at: path, "an operation must be an object like {\"o\":\"r\",\"v\":…}, not \(json.typeName)")
        }
        guard case .string(let code)? = fields["o"] else {
            throw DiffError(.malformed, at: path, "an operation needs a string \"o\"")
        }
        let value = fields["v"]
        func requireValue() throws(DiffError) -> JSONValue {
            guard let value else { throw DiffError(.malformed, at: path, "operation \"\(code)\" needs a \"v\"") }
            return value
        }
        func requireText() throws(DiffError) -> String {
            guard case .string(let delta) = try requireValue() else {
                throw DiffError(.malformed, at: path, "operation \"\(code)\" needs a string delta in \"v\"")
            }
            return delta
        }
        switch code {
        case "+": self = .insert(try requireValue())
        case "-": self = .remove
        case "r": self = .replace(try requireValue())
        case "I":
            let amount = try requireValue()
            guard amount.doubleValue != nil else {
                throw DiffError(.malformed, at: path, "operation \"I\" needs a number in \"v\", not \(amount.typeName)")
            }
            self = .increment(amount)
        case "O": self = .object(try ObjectDiff(json: try requireValue(), at: path))
        case "L": self = .list(try ListDiff(json: try requireValue(), at: path))
        case "d": self = .text(try requireText())
        case "dL": self = .listText(try requireText())
        default:
            throw DiffError(.unknownOperation, at: path, "unknown operation \"\(code)\"")
        }
    }

    public var json: JSONValue {
        switch self {
        case .insert(let value), .replace(let value), .increment(let value):
            ["o": .string(code), "v": value]
        case .remove:
            ["o": "-"]
        case .object(let diff):
            ["o": "O", "v": diff.json]
        case .list(let diff):
            ["o": "L", "v": diff.json]
        case .text(let delta), .listText(let delta):
            ["o": .string(code), "v": .string(delta)]
        }
    }
}
