import LockstepCore

/// The top-level members a change sets and unsets: the form in which changes travel between
/// peers, and in which a change is sent once it no longer stands alone for its object.
///
/// Unlike a jsondiff, which only applies to the version it was made from, member edits apply
/// to any version: a member goes to its latest writer, so two edits in either order give the
/// same object, and that is what lets changes pass from device to device in any order. A
/// string edited into another string is the exception, as on the server (merge rule 2): the
/// edit keeps the text it was made from, and is carried over to whatever text the receiver
/// holds as a text patch, as the server merges text, so concurrent inserts through peers
/// both land. Such a merge must happen once per change, which the replica sees to by ccid.
struct MemberEdits: Sendable, Equatable {
    var assigned: JSONObject = [:]
    var removed: Set<String> = []
    /// When each member was edited, in corrected time: edits coalesced into one change keep
    /// their own times, so peers order each member exactly.
    var times: [String: Int64] = [:]
    /// The text each string member held before these edits turned it into another string.
    var textBases: [String: String] = [:]

    var isEmpty: Bool { assigned.isEmpty && removed.isEmpty }
    var members: Set<String> { Set(assigned.keys).union(removed) }

    /// The edits that take `old` to `new`, member by member, made at `time`.
    init(from old: JSONObject, to new: JSONObject, at time: Int64? = nil) {
        for (name, value) in new where old[name] != value {
            assigned[name] = value
            if case .string(let before)? = old[name], case .string = value { textBases[name] = before }
        }
        for name in old.keys where new[name] == nil { removed.insert(name) }
        if let time { for name in members { times[name] = time } }
    }

    init(assigned: JSONObject = [:], removed: Set<String> = [], times: [String: Int64] = [:], textBases: [String: String] = [:]) {
        self.assigned = assigned
        self.removed = removed
        self.times = times
        self.textBases = textBases
    }

    /// These edits followed by `later`.
    func followed(by later: MemberEdits) -> MemberEdits {
        var merged = self
        for (name, value) in later.assigned {
            // Text edited twice goes from the first edit's base; text this change did not
            // touch yet goes from the later edit's; anything else was set whole here.
            let base = members.contains(name) ? textBases[name] : later.textBases[name]
            merged.textBases[name] = later.textBases[name] == nil ? nil : base
            merged.assigned[name] = value
            merged.removed.remove(name)
        }
        for name in later.removed {
            merged.assigned[name] = nil
            merged.removed.insert(name)
            merged.textBases[name] = nil
        }
        for name in later.members { merged.times[name] = later.times[name] }
        return merged
    }

    /// Only the edits of `members`.
    func restricted(to members: Set<String>) -> MemberEdits {
        MemberEdits(
            assigned: assigned.filter { members.contains($0.key) }, removed: removed.intersection(members),
            times: times.filter { members.contains($0.key) }, textBases: textBases.filter { members.contains($0.key) })
    }

    /// These edits merged into `object`, where `winning` are the members this change is the
    /// latest writer of. A text edit is carried over to the text `object` holds wherever its
    /// patches find their place, winning or not, so that neither concurrent edit is lost; any
    /// other edit sets its member only if it wins. Returns the object and the members it took.
    func merged(into object: JSONObject, winning: Set<String>) -> (object: JSONObject, taken: Set<String>) {
        var result = object
        var taken: Set<String> = []
        for name in members {
            if let text = mergedText(of: name, into: object[name]) {
                result[name] = text
            } else if winning.contains(name) {
                result[name] = assigned[name]
            } else {
                continue
            }
            taken.insert(name)
        }
        return (result, taken)
    }

    /// The edit of `name` carried over to `current` as a text patch; `nil` when the member was
    /// not edited as text, or a patch finds no place in `current`.
    private func mergedText(of name: String, into current: JSONValue?) -> JSONValue? {
        guard let base = textBases[name], case .string(let edited)? = assigned[name], case .string(let text)? = current else {
            return nil
        }
        return TextDelta.merge(from: base, to: edited, into: text).map(JSONValue.string)
    }

    var json: JSONValue {
        .object([
            "set": .object(assigned), "unset": .array(removed.sorted().map(JSONValue.string)),
            "times": .object(times.mapValues(JSONValue.integer)), "from": .object(textBases.mapValues(JSONValue.string)),
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
        // A base only means something for a member set to a string; peers that predate bases
        // send none, and their edits set members whole.
        textBases = (json["from"]?.objectValue?.compactMapValues(\.stringValue) ?? [:])
            .filter { assigned[$0.key]?.stringValue != nil }
    }
}
