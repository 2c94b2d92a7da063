extension ObjectDiff {
    /// The diff that turns `old` into `new`, using only operations every client can apply
    /// (`+ - r O d`) unless `schema` asks for others.
    public init(from old: JSONObject, to new: JSONObject, schema: DiffSchema? = nil) {
        var operations: [String: DiffOperation] = [:]
        for (name, oldValue) in old {
            if let newValue = new[name] {
                if let operation = DiffOperation(from: oldValue, to: newValue, schema: schema?.members[name]) {
                    operations[name] = operation
                }
            } else {
                operations[name] = .remove
            }
        }
        for (name, newValue) in new where old[name] == nil {
            operations[name] = .insert(newValue)
        }
        self.init(operations)
    }
}

extension DiffOperation {
    /// The operation that turns `old` into `new`, or `nil` when they are equal.
    public init?(from old: JSONValue, to new: JSONValue, schema: DiffSchema? = nil) {
        guard old != new else { return nil }
        switch (schema?.operationType, old, new) {
        case (.replace?, _, _):
            self = .replace(new)
        case (.integer?, .integer(let a), .integer(let b)):
            let (step, overflow) = b.subtractingReportingOverflow(a)
            self = overflow ? .replace(new) : .increment(.integer(step))
        case (.integer?, _, _) where old.doubleValue != nil && new.doubleValue != nil:
            self = .increment(.number(new.doubleValue! - old.doubleValue!))
        case (.list?, .array(let a), .array(let b)):
            self = .list(ListDiff(from: a, to: b, itemSchema: schema?.item?.schema))
        case (.listText?, .array(let a), .array(let b)):
            self = .listText(ListText.delta(from: a, to: b))
        case (_, .object(let a), .object(let b)):
            self = .object(ObjectDiff(from: a, to: b, schema: schema))
        case (_, .string(let a), .string(let b)):
            self = .text(TextDelta.make(from: a, to: b))
        default:
            self = .replace(new)
        }
    }
}

extension ListDiff {
    /// The index diff that turns `old` into `new`: the common ends are kept, the elements
    /// between are diffed pairwise, and the longer side's extra elements are removed or inserted.
    public init(from old: [JSONValue], to new: [JSONValue], itemSchema: DiffSchema? = nil) {
        let prefix = zip(old, new).prefix { $0 == $1 }.count
        let oldRest = old[prefix...]
        let newRest = new[prefix...]
        let suffix = zip(oldRest.reversed(), newRest.reversed()).prefix { $0 == $1 }.count
        let oldMiddle = Array(oldRest.dropLast(suffix))
        let newMiddle = Array(newRest.dropLast(suffix))
        var operations: [Int: DiffOperation] = [:]
        for offset in 0..<max(oldMiddle.count, newMiddle.count) {
            let index = prefix + offset
            if offset < oldMiddle.count && offset < newMiddle.count {
                operations[index] = DiffOperation(from: oldMiddle[offset], to: newMiddle[offset], schema: itemSchema)
            } else if offset < oldMiddle.count {
                operations[index] = .remove
            } else {
                operations[index] = .insert(newMiddle[offset])
            }
        }
        self.init(operations)
    }
}
