import LockstepCore

/// The top-level members a change sets and unsets: the form in which changes travel between
/// peers, and in which a change is sent once it no longer stands alone for its object.
///
/// Unlike a jsondiff, which only applies to the version it was made from, member edits apply
/// to any version, and applying the same edits twice, or two edits in either order under the
/// same winner rule, gives the same object. That is what lets changes pass from device to
/// device in any order and still converge.
struct MemberEdits: Sendable, Equatable {
    var assigned: JSONObject = [:]
    var removed: Set<String> = []
    /// When each member was edited, in corrected time: edits coalesced into one change keep
    /// their own times, so peers order each member exactly.
    var times: [String: Int64] = [:]

    var isEmpty: Bool { assigned.isEmpty && removed.isEmpty }
    var members: Set<String> { Set(assigned.keys).union(removed) }

    /// The edits that take `old` to `new`, member by member, made at `time`.
    init(from old: JSONObject, to new: JSONObject, at time: Int64? = nil) {
        for (name, value) in new where old[name] != value { assigned[name] = value }
        for name in old.keys where new[name] == nil { removed.insert(name) }
        if let time { for name in members { times[name] = time } }
    }

    init(assigned: JSONObject = [:], removed: Set<String> = [], times: [String: Int64] = [:]) {
        self.assigned = assigned
        self.removed = removed
        self.times = times
    }

    /// These edits followed by `later`.
    func followed(by later: MemberEdits) -> MemberEdits {
        var merged = self
        for (name, value) in later.assigned {
            merged.assigned[name] = value
            merged.removed.remove(name)
        }
        for name in later.removed {
            merged.assigned[name] = nil
            merged.removed.insert(name)
        }
        for name in later.members { merged.times[name] = later.times[name] }
        return merged
    }

    /// Only the edits of `members`.
    func restricted(to members: Set<String>) -> MemberEdits {
        MemberEdits(
            assigned: assigned.filter { members.contains($0.key) }, removed: removed.intersection(members),
            times: times.filter { members.contains($0.key) })
    }

    func applied(to object: JSONObject) -> JSONObject {
        var result = object
        for name in removed { result[name] = nil }
        for (name, value) in assigned { result[name] = value }
        return result
    }

    var json: JSONValue {
        .object([
            "set": .object(assigned), "unset": .array(removed.sorted().map(JSONValue.string)),
            "times": .object(times.mapValues(JSONValue.integer)),
        ])
    }

    init(json: JSONValue) throws {
        guard case .object(let assigned)? = json["set"], case .array(let removed)? = json["unset"] else {
            throw LockstepClientError.protocolViolation("member edits without set or unset: \(json)")
        }
        self.assigned = assigned
        self.removed = Set(removed.compactMap(\.stringValue))
        // Edits that both set and unset a member mean one thing applied (unset, then set) and
        // another followed by later edits (unset wins): devices would disagree. No writer of
        // this type makes them; a peer that sends them is refused.
        if let both = self.removed.first(where: { assigned[$0] != nil }) {
            throw LockstepClientError.protocolViolation("member edits that both set and unset \(JSONValue.string(both))")
        }
        times = json["times"]?.objectValue?.compactMapValues(\.integerValue) ?? [:]
    }
}
