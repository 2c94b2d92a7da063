import LockstepCore

/// What a typed write does to the stored object: the edit between two encodings of a value,
/// before and after the app changed it, carried onto the object as it is stored, so that every
/// member the type does not model stays as it is (GRDB's `updateChanges` does the same for a
/// record's columns).
///
/// A member both encodings hold equal is left as stored, whatever the stored value is: a
/// member the type never encodes, a newer app version's field inside a nested object, a
/// number the type reads as an integer. A member the new encoding drops (an optional set to
/// `nil`) is removed. A member it adds or changes is set, except that where both encodings and
/// the stored value are objects only the nested members that changed are set, and where they
/// are lists, each element the edit left equal keeps its stored value, and an edited element's
/// change is carried onto the stored element it came from.
///
/// ```swift
/// let stored: JSONObject = ["name": "milk", "quantity": 1, "photo": ["$blob": "sha256:…"]]
/// // Item models name and quantity: its encodings before and after `$0.quantity = 2`.
/// EncodedEdit.apply(from: ["name": "milk", "quantity": 1], to: ["name": "milk", "quantity": 2], onto: stored)
/// // ["name": "milk", "quantity": 2, "photo": ["$blob": "sha256:…"]]
/// ```
enum EncodedEdit {
    /// `stored` with the edit from `old` to `new` carried onto it.
    static func apply(from old: JSONObject, to new: JSONObject, onto stored: JSONObject) -> JSONObject {
        var result = stored
        for name in Set(old.keys).union(new.keys) {
            result[name] = carry(from: old[name], to: new[name], onto: stored[name])
        }
        return result
    }

    /// The value a member ends as when the type's encoding of it went from `old` to `new` and
    /// the object held `stored`; `nil` when the member goes (or stays absent).
    static func carry(from old: JSONValue?, to new: JSONValue?, onto stored: JSONValue?) -> JSONValue? {
        if old == new { return stored }
        guard let new else { return nil }
        switch (old, new, stored) {
        case (.object(let old)?, .object(let new), .object(let stored)?):
            return .object(apply(from: old, to: new, onto: stored))
        case (.array(let old)?, .array(let new), .array(let stored)?) where old.count == stored.count:
            return .array(carryElements(from: old, to: new, onto: stored))
        default:
            return new
        }
    }

    /// A list's edit carried onto the stored list, element by element, where `old[i]` is the
    /// type's encoding of `stored[i]`.
    ///
    /// A new element equal to an old one takes that old element's stored value, so an element
    /// kept or moved keeps what the type does not model of it. Each other new element is paired
    /// with the old element it was edited from, and the edit between the two is carried onto
    /// that element's stored value: the one with the same `id` member, for elements that have
    /// one (as `Identifiable` values encode); otherwise the remaining one that holds the most of
    /// its members equal, at least half of them. A new element paired with none is new; an old
    /// element left unpaired was removed.
    private static func carryElements(from old: [JSONValue], to new: [JSONValue], onto stored: [JSONValue]) -> [JSONValue] {
        var unused = Set(old.indices)
        var origins = [Int?](repeating: nil, count: new.count)
        for (index, element) in new.enumerated() {
            if let match = old.indices.first(where: { unused.contains($0) && old[$0] == element }) {
                origins[index] = match
                unused.remove(match)
            }
        }
        for index in new.indices where origins[index] == nil {
            let candidates = old.indices.filter(unused.contains)
            let origin: Int?
            if let id = new[index]["id"] {
                origin = candidates.first { old[$0]["id"] == id }
            } else {
                let members = new[index].objectValue?.count ?? 0
                let scored = candidates.map { (origin: $0, shared: sharedMembers(old[$0], new[index])) }
                // `max(by:)` keeps the first of equals: the earliest element.
                let best = scored.max { $0.shared < $1.shared }
                origin = best.flatMap { $0.shared > 0 && $0.shared * 2 >= members ? $0.origin : nil }
            }
            guard let origin else { continue }
            origins[index] = origin
            unused.remove(origin)
        }
        return new.indices.map { index in
            guard let origin = origins[index] else { return new[index] }
            return carry(from: old[origin], to: new[index], onto: stored[origin]) ?? new[index]
        }
    }

    /// How many members two objects hold equal: how much an edited element resembles an old one.
    private static func sharedMembers(_ a: JSONValue, _ b: JSONValue) -> Int {
        guard case .object(let a) = a, case .object(let b) = b else { return 0 }
        return a.reduce(0) { count, member in b[member.key] == member.value ? count + 1 : count }
    }
}
