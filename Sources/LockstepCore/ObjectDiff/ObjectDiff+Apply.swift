extension ObjectDiff {
    /// The object this diff turns `object` into.
    ///
    /// Throws a ``DiffError`` naming the path of the first operation that does not fit; `object`
    /// itself is never changed, so a failed apply leaves nothing half-done.
    public func apply(to object: JSONObject) throws(DiffError) -> JSONObject {
        try apply(to: object, at: DiffPath())
    }

    func apply(to object: JSONObject, at path: DiffPath) throws(DiffError) -> JSONObject {
        var result = object
        for (name, operation) in operations {
            result[name] = try operation.apply(to: object[name], at: path.appending(member: name))
        }
        return result
    }
}

extension DiffOperation {
    /// The value this operation leaves where `value` was; `nil` means the member is gone.
    public func apply(to value: JSONValue?) throws(DiffError) -> JSONValue? {
        try apply(to: value, at: DiffPath())
    }

    func apply(to value: JSONValue?, at path: DiffPath) throws(DiffError) -> JSONValue? {
        switch self {
        case .insert(let new), .replace(let new):
            return new
        case .remove:
            return nil
        case .increment(let amount):
            return try Self.add(amount, to: value, at: path)
        case .object(let diff):
            guard case .object(let members)? = value else {
                throw mismatch(value, at: path, expected: "an object")
            }
            return .object(try diff.apply(to: members, at: path))
        case .list(let diff):
            guard case .array(let elements)? = value else {
                throw mismatch(value, at: path, expected: "a list")
            }
            return .array(try diff.apply(to: elements, at: path))
        case .text(let delta):
            guard case .string(let text)? = value else {
                throw mismatch(value, at: path, expected: "a string")
            }
            do {
                return .string(try TextDelta.apply(delta, to: text))
            } catch {
                throw DiffError(.badTextDelta, at: path, "text delta does not apply: \(error)")
            }
        case .listText(let delta):
            guard case .array(let elements)? = value else {
                throw mismatch(value, at: path, expected: "a list")
            }
            return .array(try ListText.apply(delta, to: elements, at: path))
        }
    }

    private func mismatch(_ value: JSONValue?, at path: DiffPath, expected: String) -> DiffError {
        DiffError(.wrongType, at: path, "operation \"\(code)\" needs \(expected) but finds \(value?.typeName ?? "nothing")")
    }

    private static func add(_ amount: JSONValue, to value: JSONValue?, at path: DiffPath) throws(DiffError) -> JSONValue {
        switch (value, amount) {
        case (.integer(let base)?, .integer(let step)):
            let (sum, overflow) = base.addingReportingOverflow(step)
            guard !overflow else {
                throw DiffError(.numberOverflow, at: path, "adding \(step) to \(base) overflows a 64-bit integer")
            }
            return .integer(sum)
        case (let base?, _):
            guard let start = base.doubleValue, let step = amount.doubleValue else {
                throw DiffError(.wrongType, at: path, "operation \"I\" needs a number but finds \(base.typeName)")
            }
            return .number(start + step)
        case (nil, _):
            throw DiffError(.wrongType, at: path, "operation \"I\" needs a number but finds nothing")
        }
    }
}

extension ListDiff {
    /// The list this diff turns `elements` into.
    public func apply(to elements: [JSONValue]) throws(DiffError) -> [JSONValue] {
        try apply(to: elements, at: DiffPath())
    }

    func apply(to elements: [JSONValue], at path: DiffPath) throws(DiffError) -> [JSONValue] {
        var result = elements
        var removed = 0
        for index in operations.keys.sorted() {
            let operation = operations[index]!
            let position = index - removed
            let elementPath = path.appending(index: index)
            switch operation {
            case .insert(let value):
                guard position <= result.count else { throw outOfRange(index, count: elements.count, at: elementPath) }
                result.insert(value, at: position)
            case .remove:
                guard position < result.count else { throw outOfRange(index, count: elements.count, at: elementPath) }
                result.remove(at: position)
                removed += 1
            default:
                guard position < result.count else { throw outOfRange(index, count: elements.count, at: elementPath) }
                guard let value = try operation.apply(to: result[position], at: elementPath) else {
                    throw DiffError(.malformed, at: elementPath, "a list element cannot be removed by \"\(operation.code)\"")
                }
                result[position] = value
            }
        }
        return result
    }

    private func outOfRange(_ index: Int, count: Int, at path: DiffPath) -> DiffError {
        DiffError(.indexOutOfRange, at: path, "index \(index) is out of range for a list of \(count) elements")
    }
}
