@testable import LockstepClient
import LockstepCore

/// What the merge rules say the data must end as, from the edits that returned, each with the
/// stamp its device gave it; and the check of the final states against that.
///
/// - Whole-value members (numbers, lists, removals): the edit with the latest stamp wins
///   (later corrected time, ties to the greater client id), wherever and whenever it arrived.
/// - The text member: every token inserted by an edit that returned is there, once.
/// - A deleted object is gone for good; every other object created by a put that returned is there.
struct ConvergenceOracle: Sendable {
    struct Write: Sendable {
        var value: JSONValue?
        /// `nil` when a later-stamped write of the member had already reached the device by the
        /// time the test read the stamp: this write loses to that one, which is recorded too.
        var stamp: EditStamp?
        var step: Int
    }

    private(set) var created: [String: Int] = [:]
    private(set) var deleted: [String: Int] = [:]
    private(set) var writes: [String: [String: [Write]]] = [:]
    private(set) var tokens: [String: [String]] = [:]

    mutating func recordCreate(key: String, step: Int) { created[key] = step }
    mutating func recordDelete(key: String, step: Int) { deleted[key] = deleted[key] ?? step }
    mutating func recordToken(_ token: String, key: String) { tokens[key, default: []].append(token) }


    /// An edit that took `before` to `after` on the device `clientID`, whose store held `stamps`
    /// for the object's members just after it.
    mutating func recordEdit(key: String, before: JSONObject, after: JSONObject, stamps: [String: MemberStamp], clientID: String, step: Int) {
        for member in History.wholeValueMembers where before[member] != after[member] {
            // The device stamped the edit when it made it; a stamp of another client there now
            // is a later write that came in since (stamps only ever rise).
            let stamp = stamps[member].flatMap { $0.clientID == clientID ? EditStamp(time: $0.time, clientID: clientID) : nil }
            writes[key, default: [:]][member, default: []].append(Write(value: after[member], stamp: stamp, step: step))
        }
    }

    /// The write the rules choose for `member` of `key`.
    func winner(key: String, member: String) -> Write? {
        writes[key]?[member]?.filter { $0.stamp != nil }.max { a, b in
            MergeRules.winner(incoming: b.stamp!, applied: a.stamp!) == .incoming
        }
    }

    /// Every way `states` (each device's, then each server node's: key → object) break the rules.
    func problems(devices: [[String: JSONObject]], servers: [[String: JSONObject]], feedChangeIDs: [String]) -> [String] {
        var problems: [String] = []
        let all = devices.enumerated().map { ("device \($0.offset)", $0.element) } + servers.enumerated().map { ("server node \($0.offset)", $0.element) }
        guard let (referenceName, reference) = all.first else { return ["no states"] }
        for (name, state) in all.dropFirst() where state != reference {
            let keys = Set(state.keys).union(reference.keys).filter { state[$0] != reference[$0] }.sorted()
            let shown = keys.prefix(3).map { "\($0): \(state[$0].map { "\(JSONValue.object($0))" } ?? "absent") vs \(reference[$0].map { "\(JSONValue.object($0))" } ?? "absent")" }
            problems.append("\(name) differs from \(referenceName) in \(keys.count) objects: \(shown.joined(separator: "; "))")
        }
        for (name, state) in all {
            problems += check(state, name: name)
        }
        var seen: [String: Int] = [:]
        for id in feedChangeIDs { seen[id, default: 0] += 1 }
        let twice = seen.filter { $0.value > 1 }.keys.sorted()
        if !twice.isEmpty { problems.append("changes applied more than once on the server: \(twice.prefix(5))") }
        return problems
    }

    private func check(_ state: [String: JSONObject], name: String) -> [String] {
        var problems: [String] = []
        for key in state.keys.sorted() where created[key] == nil {
            problems.append("\(name): \(key) was never created")
        }
        for (key, step) in deleted.sorted(by: { $0.key < $1.key }) where state[key] != nil {
            problems.append("\(name): \(key), deleted at #\(step), is back: \(JSONValue.object(state[key]!))")
        }
        for (key, step) in created.sorted(by: { $0.key < $1.key }) where deleted[key] == nil {
            guard let object = state[key] else {
                problems.append("\(name): \(key), created at #\(step) and never deleted, is missing")
                continue
            }
            let unknown = Set(object.keys).subtracting(History.wholeValueMembers + ["text"])
            if !unknown.isEmpty { problems.append("\(name): \(key) has members nobody wrote: \(unknown.sorted())") }
            for member in History.wholeValueMembers {
                guard let expected = winner(key: key, member: member) else { continue }
                if object[member] != expected.value {
                    problems.append(
                        "\(name): \(key).\(member) is \(object[member].map { "\($0)" } ?? "absent"), but the latest edit by the rules is #\(expected.step)'s "
                            + "\(expected.value.map { "\($0)" } ?? "(removed)") [\(stamps(key: key, member: member))]")
                }
            }
            let text = object["text"]?.stringValue ?? ""
            let (present, rest) = Self.tokens(in: text)
            if !rest.isEmpty { problems.append("\(name): \(key).text holds what no insert wrote: \"\(rest)\" (text: \"\(text)\")") }
            let inserted = tokens[key] ?? []
            let missing = inserted.filter { !present.contains($0) }
            var counts: [String: Int] = [:]
            for token in present { counts[token, default: 0] += 1 }
            let repeated = counts.filter { $0.value > 1 }.keys.sorted()
            let strangers = Set(present).subtracting(inserted).sorted()
            if !missing.isEmpty { problems.append("\(name): \(key).text lost inserted tokens \(missing) (text: \"\(text)\")") }
            if !repeated.isEmpty { problems.append("\(name): \(key).text holds tokens twice: \(repeated) (text: \"\(text)\")") }
            if !strangers.isEmpty { problems.append("\(name): \(key).text holds tokens nobody inserted: \(strangers) (text: \"\(text)\")") }
        }
        return problems
    }

    /// The tokens of a text member, `[t1][t12]…`, and what is left of it between and around them.
    static func tokens(in text: String) -> (tokens: [String], rest: String) {
        var tokens: [String] = []
        var rest = ""
        var remaining = Substring(text)
        while !remaining.isEmpty {
            if let match = remaining.prefixMatch(of: /\[(t[0-9]+)\]/) {
                tokens.append(String(match.output.1))
                remaining = remaining[match.range.upperBound...]
            } else {
                rest.append(remaining.removeFirst())
            }
        }
        return (tokens, rest)
    }

    /// The writes of a member with their stamps, for a failure message.
    private func stamps(key: String, member: String) -> String {
        (writes[key]?[member] ?? []).map { write in
            "#\(write.step)=\(write.value.map { "\($0)" } ?? "-")@" + (write.stamp.map { "\((($0.time ?? 0) - 1_750_000_000_000_000_000) / 1_000_000)ms/\($0.clientID.suffix(4))" } ?? "lost")
        }.joined(separator: ", ")
    }
}
