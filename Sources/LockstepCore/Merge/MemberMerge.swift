extension MergeRules {
    /// Merges the members of an object sent whole by a client whose base version is gone (too
    /// old to rebase over), one member at a time by the edit stamps.
    ///
    /// Each member in `names` takes its value from `incoming` (or goes, when `incoming` lacks
    /// it) where the change's `stamp` wins over the stamp of the member's last write, by
    /// ``winner(incoming:applied:)``: the later corrected time, or the later arrival when either
    /// has no time. A member never written since the stamps were kept counts as won. Every
    /// other member keeps its current value, so an edit the server accepted later is never
    /// undone by an older one that arrives late.
    ///
    /// ```swift
    /// let current: JSONObject = ["title": "Milk", "done": true]
    /// let merged = MergeRules.mergeMembers(
    ///     ["title": "Oat milk", "done": false], named: ["title"], into: current,
    ///     stamp: EditStamp(time: 20, clientID: "b"), stamps: ["title": EditStamp(time: 10, clientID: "a")])
    /// // ["title": "Oat milk", "done": true]
    /// ```
    public static func mergeMembers(
        _ incoming: JSONObject, named names: some Sequence<String>, into current: JSONObject, stamp: EditStamp,
        stamps: [String: EditStamp]
    ) -> JSONObject {
        var merged = current
        for name in names {
            if let last = stamps[name], winner(incoming: stamp, applied: last) == .applied { continue }
            merged[name] = incoming[name]
        }
        return merged
    }

    /// The members where `incoming` and `current` differ: what a whole object sent without a
    /// diff changes.
    public static func changedMembers(_ incoming: JSONObject, from current: JSONObject) -> [String] {
        Set(incoming.keys).union(current.keys).filter { incoming[$0] != current[$0] }.sorted()
    }
}
