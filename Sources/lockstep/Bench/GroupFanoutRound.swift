import Foundation
import LockstepCore

/// One measured round of the grouped fan-out benchmark: `groups` buckets of `members`
/// subscribers each, every subscriber a user of its own, while writers send `writes` changes
/// at `writesPerSecond`, one group after another.
///
/// The same load runs twice: on app-wide shared buckets, and on spaces (each bucket a space's,
/// each subscriber a member). A space's right to receive is decided when its channel opens,
/// not per delivery, so the two should deliver alike; the ratio of their latencies says
/// what spaces cost.
struct GroupFanoutRound: Sendable {
    enum Kind: String, Sendable {
        case sharedBuckets = "buckets"
        case spaces
    }

    var target: BenchTarget
    var kind: Kind
    var groups: Int
    /// Access tokens of the members: subscriber `j` of every group uses token `j`; the
    /// writers use token 0.
    var memberTokens: [String]
    var writesPerSecond: Double
    var writes: Int

    /// Makes the groups' buckets (sharing or inviting), connects every subscriber, writes, and
    /// measures each delivery.
    func run() async throws -> FanoutRound.Result {
        let buckets = try await makeBuckets()
        let sent = SendTimes()
        var subscribers: [(socket: BenchSocket, received: Deliveries)] = []
        // A hundred at a time: a burst of thousands would overflow the listen backlog.
        let pairs = buckets.indices.flatMap { group in memberTokens.indices.map { (group, $0) } }
        for start in stride(from: 0, to: pairs.count, by: 100) {
            subscribers += try await withThrowingTaskGroup(of: (BenchSocket, Deliveries).self) { taskGroup in
                for (group, member) in pairs[start..<min(start + 100, pairs.count)] {
                    taskGroup.addTask {
                        let received = Deliveries()
                        let initialization = Self.initialization(0, buckets[group], memberTokens[member], "s-\(group)-\(member)")
                        let socket = try await BenchSocket.open(url: target.socketURL, initialization: initialization) { message in
                            guard message.hasPrefix("0:c:[") else { return }
                            let now = ContinuousClock.now
                            for ccid in FanoutRound.changeIDs(in: message) {
                                if let time = sent.time(of: ccid) { received.record(now - time) }
                            }
                        }
                        return (socket, received)
                    }
                }
                var opened: [(socket: BenchSocket, received: Deliveries)] = []
                for try await client in taskGroup { opened.append(client) }
                return opened
            }
        }
        // One writer socket per hundred groups: a connection opens at most 100 channels.
        var writers: [BenchSocket] = []
        for start in stride(from: 0, to: buckets.count, by: 100) {
            let initializations = (start..<min(start + 100, buckets.count)).map { group in
                Self.initialization(group - start, buckets[group], memberTokens[0], "writer-\(group)")
            }
            writers.append(try await BenchSocket.open(url: target.socketURL, initializations: initializations) { _ in })
        }

        let started = ContinuousClock.now
        for number in 0..<writes {
            try await Task.sleep(until: started + .seconds(Double(number) / writesPerSecond), clock: .continuous)
            let group = number % buckets.count
            let ccid = "\(kind.rawValue)-\(number)"
            let change: JSONValue = ["id": .string("o\(number)"), "ccid": .string(ccid), "o": "M", "v": ["n": ["o": "+", "v": .integer(Int64(number))]]]
            sent.record(ccid)
            try await writers[group / 100].send("\(group % 100):c:\(change)")
        }
        let expected = writes * memberTokens.count
        let deadline = ContinuousClock.now + .seconds(30)
        while subscribers.reduce(0, { $0 + $1.received.deliveries }) < expected && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let samples = subscribers.map(\.received)
        let last = samples.compactMap(\.lastDelivery).max() ?? started
        for writer in writers { await writer.close() }
        for subscriber in subscribers { await subscriber.socket.close() }
        return FanoutRound.Result(
            subscribers: subscribers.count, writes: writes, deliveries: samples.reduce(0) { $0 + $1.deliveries },
            latencies: samples.flatMap(\.latencies).sorted(), elapsed: last - started)
    }

    /// The groups' bucket names, made ready: shared, or spaces with every member a writer.
    private func makeBuckets() async throws -> [String] {
        let run = UUID().uuidString.prefix(8).lowercased()
        let emails = memberTokens.indices.map(Self.memberEmail)
        var buckets: [String] = []
        for group in 0..<groups {
            switch kind {
            case .sharedBuckets:
                let bucket = "fanout-\(run)-\(group)"
                try await target.shareBucket(bucket)
                buckets.append(bucket)
            case .spaces:
                let space = "fanout-\(run)-\(group)"
                try await target.admin("__spaces__", body: ["name": .string(space)])
                for email in emails {
                    try await target.admin("__spaces__/\(space)/members", body: ["email": .string(email), "role": "writer"])
                }
                buckets.append("__\(space).items")
            }
        }
        return buckets
    }

    /// Member `number`'s username, as invitations name them.
    static func memberEmail(_ number: Int) -> String { "member\(number)@bench.example" }

    private static func initialization(_ channel: Int, _ bucket: String, _ token: String, _ clientID: String) -> String {
        // The bucket is new: an empty index walk starts the channel (it sends nothing until asked).
        let fields: JSONValue = ["name": .string(bucket), "token": .string(token), "clientid": .string(clientID), "api": "1.1", "cmd": "i::::1000"]
        return "\(channel):init:\(fields)"
    }
}
