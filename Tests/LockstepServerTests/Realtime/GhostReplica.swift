import LockstepCore
import Testing

/// What a raw Simperium client keeps: the last acknowledged version and data of each object
/// (its ghosts) and the `cv` of the last change it received. It applies each change it
/// receives to the ghost at the change's `sv`, as node-simperium does; a change for a version
/// it does not hold means one was skipped or repeated, and is recorded as an issue.
struct GhostReplica {
    struct Ghost: Equatable {
        var version: Int
        var data: JSONObject
    }

    var ghosts: [String: Ghost] = [:]
    var cursor: String?

    /// Takes an index walk's entries and its `current`.
    mutating func load(index entries: [JSONObject], current: String) {
        for entry in entries {
            guard let key = entry["id"]?.stringValue, let version = entry["v"]?.integerValue, let data = entry["d"]?.objectValue else {
                Issue.record("an index entry without id, v or d: \(entry)")
                continue
            }
            ghosts[key] = Ghost(version: Int(version), data: data)
        }
        cursor = current
    }

    /// Applies every change of the `N:c:[…]` messages among `messages`, in order.
    mutating func take(_ messages: [String], channel: Int = 0) throws {
        let prefix = "\(channel):c:"
        for message in messages where message.hasPrefix(prefix) {
            for change in try JSONValue(parsing: String(message.dropFirst(prefix.count))).arrayValue ?? [] {
                try apply(try #require(change.objectValue))
            }
        }
    }

    mutating func apply(_ change: JSONObject) throws {
        guard change["error"] == nil else { return }
        let key = try #require(change["id"]?.stringValue)
        let endVersion = Int(try #require(change["ev"]?.integerValue))
        let sourceVersion = change["sv"]?.integerValue.map(Int.init)
        if ghosts[key]?.version != sourceVersion {
            Issue.record("\(key): a change from version \(sourceVersion.map(String.init) ?? "none") to \(endVersion) met the ghost at \(ghosts[key].map { String($0.version) } ?? "none"): a change was skipped or repeated")
            return
        }
        switch change["o"]?.stringValue {
        case "-":
            ghosts[key] = nil
        default:
            let diff = try ObjectDiff(json: try #require(change["v"]))
            ghosts[key] = Ghost(version: endVersion, data: try diff.apply(to: ghosts[key]?.data ?? [:]))
        }
        cursor = try #require(change["cv"]?.stringValue)
    }

    /// The objects as the ghosts hold them.
    var objects: [String: JSONObject] { ghosts.mapValues(\.data) }
}

extension UserSession {
    /// Every live object of `bucket`, as the server holds it now.
    func allObjects(_ bucket: String = "note") async throws -> [String: JSONObject] {
        var objects: [String: JSONObject] = [:]
        var mark: String?
        repeat {
            let page = try #require(try await request("GET", "\(bucket)/index?data=1&limit=1000" + (mark.map { "&mark=\($0)" } ?? "")).json)
            for entry in page["index"]?.arrayValue ?? [] {
                objects[try #require(entry["id"]?.stringValue)] = try #require(entry["d"]?.objectValue)
            }
            mark = page["mark"]?.stringValue
        } while mark != nil
        return objects
    }
}
