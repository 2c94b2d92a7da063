/// A history for the convergence checker: what five devices do, in order, against a server
/// that restarts and is killed, all drawn from one seed so that a failure replays.
///
/// Steps name what they touch by key and carry their own edit time and values, so that any
/// subset of a history is a history too (the shrinker drops steps): a step whose object is not
/// on its device when it runs does nothing, as an app's edit of an item it does not have.
struct History: Sendable, CustomStringConvertible {
    static let deviceCount = 5
    /// The two devices that also meet as peers.
    static let peers = (0, 1)

    var seed: UInt64
    var steps: [Step]

    var description: String {
        "seed \(seed), \(steps.count) steps:\n" + steps.map { "  \($0)" }.joined(separator: "\n")
    }
}

struct Step: Sendable, Hashable, CustomStringConvertible {
    /// The step's place in the history it was generated in: its values and tokens derive from it.
    var index: Int
    /// The edit time (server clock, ns) an edit in this step is stamped with, at the least.
    var time: Int64
    var action: Action

    enum Action: Sendable, Hashable {
        /// `put` of a new object under a key of this device's own.
        case create(device: Int, key: String)
        /// The object replaced whole (its numbers and tags; its text stays), as a form's save does.
        case replace(device: Int, key: String, dropTags: Bool)
        /// One whole-value member set (or, `nil`, removed).
        case edit(device: Int, key: String, member: String, value: Int64?)
        /// A unique token inserted into the text member, between two tokens (`at` in 0...1).
        case insert(device: Int, key: String, at: Double)
        case delete(device: Int, key: String)
        case offline(device: Int)
        case online(device: Int)
        /// The two peer devices meet, and sync directly until neither has anything to pass on.
        case meet
        /// Time for syncs to run.
        case pause(milliseconds: Int)
        /// SIGTERM, and the server started again on the same data.
        case restartServer(node: Int)
        /// SIGKILL while devices sync, and the server started again on the same data.
        case killServer(node: Int, afterMilliseconds: Int)
        /// The device's store synced by a `lockstep client … sync` process, SIGKILLed mid-sync.
        case killClient(device: Int, afterMilliseconds: Int)
    }

    /// The value an edit of this step writes: unique in the history.
    var value: Int64 { Int64(index + 1) }
    /// The token a text insert of this step writes: unique in the history.
    var token: String { "t\(index)" }

    var description: String {
        switch action {
        case .create(let device, let key): "#\(index) d\(device) create \(key) at \(time)"
        case .replace(let device, let key, let dropTags): "#\(index) d\(device) replace \(key)\(dropTags ? " without tags" : "") at \(time)"
        case .edit(let device, let key, let member, let value): "#\(index) d\(device) edit \(key).\(member) = \(value.map(String.init) ?? "(removed)") at \(time)"
        case .insert(let device, let key, let at): "#\(index) d\(device) insert \(token) into \(key).text at \(Int(at * 100))% at \(time)"
        case .delete(let device, let key): "#\(index) d\(device) delete \(key) at \(time)"
        case .offline(let device): "#\(index) d\(device) offline"
        case .online(let device): "#\(index) d\(device) online"
        case .meet: "#\(index) d\(History.peers.0) and d\(History.peers.1) meet as peers"
        case .pause(let milliseconds): "#\(index) pause \(milliseconds) ms"
        case .restartServer(let node): "#\(index) restart server node \(node)"
        case .killServer(let node, let after): "#\(index) SIGKILL server node \(node) after \(after) ms, start it again"
        case .killClient(let device, let after): "#\(index) d\(device) synced by a process SIGKILLed after \(after) ms"
        }
    }
}

extension History {
    /// The members an edit writes whole: the rules pick one edit's value for each.
    static let wholeValueMembers = ["n", "m", "tags"]

    /// `count` steps drawn from `seed`, with `nodes` server nodes. Every history has one graceful
    /// restart, one SIGKILL of a server and (with `clientKills`) one SIGKILL of a syncing client
    /// process, at random places; offline periods and peer meetings come at random.
    ///
    /// Without `peerTextEdits`, only the devices that never meet as peers insert into text, so no
    /// text edit travels through peers (the histories that CI's fixed seeds name were drawn that
    /// way, before peers merged text: ``PeerTextMergeTests``). Every other edit goes through peers.
    static func generate(seed: UInt64, count: Int = 60, nodes: Int = 1, clientKills: Bool = true, peerTextEdits: Bool = false) -> History {
        var random = SeededRandom(seed: seed)
        // Each device's clock is off the server's by a whole number of milliseconds, so that
        // edits of different devices sometimes carry the same time (the client id decides).
        let skews = (0..<deviceCount).map { _ in Int64.random(in: -4...4, using: &random) }
        let start: Int64 = 1_750_000_000_000_000_000
        var faults: [Int: Step.Action] = [:]
        let places = Array((5..<count).shuffled(using: &random).prefix(3))
        faults[places[0]] = .restartServer(node: Int.random(in: 0..<nodes, using: &random))
        faults[places[1]] = .killServer(node: Int.random(in: 0..<nodes, using: &random), afterMilliseconds: Int.random(in: 0...150, using: &random))
        if clientKills {
            faults[places[2]] = .killClient(device: Int.random(in: 0..<deviceCount, using: &random), afterMilliseconds: Int.random(in: 50...900, using: &random))
        }

        var keys: [String] = []
        var offline: Set<Int> = []
        var steps: [Step] = []
        for index in 0..<count {
            var device = Int.random(in: 0..<deviceCount, using: &random)
            var time: Int64 { start + (Int64(index) + skews[device]) * 1_000_000 }
            func known() -> String? { keys.randomElement(using: &random) }
            let roll = Int.random(in: 0..<100, using: &random)
            var action: Step.Action
            if let fault = faults[index] {
                action = fault
            } else if keys.count < 2 || roll < 12 {
                let key = "k\(index)-d\(device)"
                keys.append(key)
                action = .create(device: device, key: key)
            } else if roll < 20 {
                action = .replace(device: device, key: known()!, dropTags: Bool.random(using: &random))
            } else if roll < 45 {
                let member = wholeValueMembers.randomElement(using: &random)!
                action = .edit(device: device, key: known()!, member: member, value: Int.random(in: 0..<6, using: &random) == 0 ? nil : Int64(index + 1))
            } else if roll < 66 {
                if !peerTextEdits && (device == peers.0 || device == peers.1) { device = 2 + index % (deviceCount - 2) }
                action = .insert(device: device, key: known()!, at: Double(Int.random(in: 0...100, using: &random)) / 100)
            } else if roll < 71 {
                action = .delete(device: device, key: known()!)
            } else if roll < 83 {
                action = offline.contains(device) ? .online(device: device) : .offline(device: device)
                if offline.contains(device) { offline.remove(device) } else { offline.insert(device) }
            } else if roll < 89 {
                action = .meet
            } else {
                action = .pause(milliseconds: Int.random(in: 5...120, using: &random))
            }
            steps.append(Step(index: index, time: time, action: action))
        }
        return History(seed: seed, steps: steps)
    }
}
