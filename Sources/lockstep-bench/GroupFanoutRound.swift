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
        let pairs = buckets.indices.flatMap { group in memberTokens.indices.map { (group, $0) } }
        let subscribers = try await FanoutRound.connectSubscribers(pairs.count, url: target.socketURL, sent: sent) { [memberTokens] number in
            let (group, member) = pairs[number]
            return Self.initialization(0, buckets[group], memberTokens[member], "s-\(group)-\(member)")
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
            sent.record(ccid)
            try await writers[group / 100].send("\(group % 100):c:\(FanoutRound.change(number, ccid: ccid))")
        }
        return try await FanoutRound.collect(
            subscribers, writers: writers, writes: writes, expected: writes * memberTokens.count, started: started)
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
