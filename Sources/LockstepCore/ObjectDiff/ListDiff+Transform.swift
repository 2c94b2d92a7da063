extension ListDiff {
    /// This list diff rebased over `applied`, both made against `base`.
    ///
    /// Elements inserted by both at the same place keep both, the winner's first; an element
    /// one side removes and the other edits follows the winner (a winning edit brings it
    /// back); elements both edit merge as values do.
    func transformed(over applied: ListDiff, base: [JSONValue], winner: ConflictWinner, at path: DiffPath) throws(DiffError) -> ListDiff {
        let mine = try ListEdits(of: self, base: base, at: path)
        let theirs = try ListEdits(of: applied, base: base, at: path)
        var output = ListDiffWriter()
        for anchor in 0...base.count {
            let myInsertions = mine.insertions[anchor] ?? []
            let theirInsertions = theirs.insertions[anchor] ?? []
            if winner == .incoming {
                myInsertions.forEach { output.insert($0) }
                theirInsertions.forEach { _ in output.keep() }
            } else {
                theirInsertions.forEach { _ in output.keep() }
                myInsertions.forEach { output.insert($0) }
            }
            guard anchor < base.count else { break }
            let myEdit = mine.modifications[anchor]
            let theirEdit = theirs.modifications[anchor]
            if theirs.removals.contains(anchor) {
                if let myEdit, winner == .incoming {
                    output.insert(try myEdit.apply(to: base[anchor], at: path.appending(index: anchor))!)
                }
            } else if mine.removals.contains(anchor) {
                if theirEdit != nil && winner == .applied { output.keep() } else { output.remove() }
            } else if let myEdit {
                if let theirEdit {
                    let rebased = try myEdit.transformed(
                        over: theirEdit, base: base[anchor], winner: winner, at: path.appending(index: anchor))
                    if let rebased { output.modify(rebased) } else { output.keep() }
                } else {
                    output.modify(myEdit)
                }
            } else {
                output.keep()
            }
        }
        return output.diff
    }
}

/// What a list diff does, in terms of the base list's elements rather than shifting indices.
private struct ListEdits {
    /// Base indices of the elements the diff removes.
    var removals: Set<Int> = []
    /// The operation the diff applies to each base element it edits.
    var modifications: [Int: DiffOperation] = [:]
    /// Values the diff inserts before each base index (`base.count` for the end), in order.
    var insertions: [Int: [JSONValue]] = [:]

    private enum Slot {
        case base(Int)
        case inserted(JSONValue)
    }

    init(of diff: ListDiff, base: [JSONValue], at path: DiffPath) throws(DiffError) {
        var slots = base.indices.map(Slot.base)
        var removedCount = 0
        for index in diff.operations.keys.sorted() {
            let operation = diff.operations[index]!
            let position = index - removedCount
            let elementPath = path.appending(index: index)
            let isInsertion: Bool = if case .insert = operation { true } else { false }
            let limit = isInsertion ? slots.count : slots.count - 1
            guard position >= 0, position <= limit else {
                throw DiffError(.indexOutOfRange, at: elementPath, "index \(index) is out of range for a list of \(base.count) elements")
            }
            switch (operation, slots[safe: position]) {
            case (.insert(let value), _):
                slots.insert(.inserted(value), at: position)
            case (.remove, .base(let baseIndex)?):
                removals.insert(baseIndex)
                slots.remove(at: position)
                removedCount += 1
            case (.remove, _):
                slots.remove(at: position)
                removedCount += 1
            case (_, .inserted(let value)?):
                slots[position] = .inserted(try Self.edit(value, with: operation, at: elementPath))
            case (_, .base(let baseIndex)?):
                if let earlier = modifications[baseIndex] {
                    let once = try Self.edit(base[baseIndex], with: earlier, at: elementPath)
                    modifications[baseIndex] = .replace(try Self.edit(once, with: operation, at: elementPath))
                } else {
                    modifications[baseIndex] = operation
                }
            case (_, nil):
                break
            }
        }
        var pending: [JSONValue] = []
        for slot in slots {
            switch slot {
            case .inserted(let value):
                pending.append(value)
            case .base(let baseIndex):
                if !pending.isEmpty { insertions[baseIndex] = pending }
                pending = []
            }
        }
        if !pending.isEmpty { insertions[base.count] = pending }
    }

    private static func edit(_ value: JSONValue, with operation: DiffOperation, at path: DiffPath) throws(DiffError) -> JSONValue {
        guard let edited = try operation.apply(to: value, at: path) else {
            throw DiffError(.malformed, at: path, "a list element cannot be removed by \"\(operation.code)\"")
        }
        return edited
    }
}

/// Writes a list diff from a walk over the resulting list, producing indices in the jsondiff
/// convention (removed elements still counted, insertions already made).
private struct ListDiffWriter {
    private(set) var diff = ListDiff()
    private var position = 0
    private var removedCount = 0

    mutating func insert(_ value: JSONValue) {
        diff.operations[position + removedCount] = .insert(value)
        position += 1
    }

    mutating func keep() {
        position += 1
    }

    mutating func modify(_ operation: DiffOperation) {
        diff.operations[position + removedCount] = operation
        position += 1
    }

    mutating func remove() {
        diff.operations[position + removedCount] = .remove
        removedCount += 1
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
