import ArgumentParser
import CommandLineSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `lockstep-bench fanout-subscribers`: one subscriber process of `lockstep-bench fanout
/// --processes N`, started by it, never by hand.
///
/// It opens `--count` subscriptions (to a Lockstep bucket, or to a Redis channel), prints
/// `{"ready":<count>}`, and times every change they receive. It is done when each subscription
/// has the `--expect` changes or has ended, or, once the parent signalled the end of writing
/// (SIGUSR1), when nothing more arrived for `--quiet-seconds`. It then prints its summary as
/// one JSON line (`SubscriberSummary`) and stays connected until the parent ends it, so that
/// the server's figures are read with every subscriber still there.
struct FanoutSubscribers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout-subscribers", abstract: "One subscriber process of bench fanout --processes.", shouldDisplay: false)

    enum Server: String, ExpressibleByArgument {
        case lockstep, redis
    }

    @Option(help: "lockstep or redis.")
    var server: Server

    @Option(help: "Lockstep: the streaming socket's URL.")
    var url: String?

    @Option(help: "Lockstep: the subscribers' access token.")
    var token: String?

    @Option(help: "The Lockstep bucket, or the Redis channel.")
    var bucket: String

    @Option(name: .customLong("redis-port"), help: "Redis: the port of redis-server on 127.0.0.1.")
    var redisPort: Int?

    @Option(help: "Subscriptions to open.")
    var count: Int

    @Option(help: "Changes each subscription should receive (0: none, an idle run).")
    var expect: Int

    @Option(name: .customLong("quiet-seconds"), help: "After the end of writing, how long nothing must arrive before reporting.")
    var quietSeconds = 3.0

    @Option(name: .customLong("deadline-seconds"), help: "The longest this process runs.")
    var deadlineSeconds = 900.0

    @Option(help: "The number of the first subscription, for client ids.")
    var first = 0

    func run() async throws {
        let cpu = CPUTime(including: [getpid()])
        let deadline = ContinuousClock.now + .seconds(deadlineSeconds)
        FileDescriptorLimit.raiseToHardLimit()
        _ = signal(SIGUSR1) { _ in writingEnded.store(true, ordering: .relaxed) }
        let tallies = (0..<count).map { _ in SubscriptionTally() }
        try await open(tallies)
        say(#"{"ready":\#(count)}"#)
        try await waitUntilDone(tallies, deadline: deadline)
        var summary = SubscriberSummary.total(tallies.map { $0.summary(expectedEach: expect) })
        summary.processCPUSeconds = cpu.elapsed()
        say(String(decoding: try JSONEncoder().encode(summary), as: UTF8.self))
        try await Task.sleep(until: deadline)
    }

    /// Opens the subscriptions a hundred at a time: a burst of thousands would overflow the
    /// server's listen backlog.
    private func open(_ tallies: [SubscriptionTally]) async throws {
        let subscribe = try subscriber()
        let first = first
        var opened = 0
        while opened < tallies.count {
            let batch = opened..<min(opened + 100, tallies.count)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in batch {
                    group.addTask { try await subscribe(tallies[index], first + index) }
                }
                try await group.waitForAll()
            }
            opened = batch.upperBound
        }
    }

    /// Opens one subscription, numbered, counting into its tally.
    private func subscriber() throws -> @Sendable (SubscriptionTally, Int) async throws -> Void {
        let bucket = bucket
        switch server {
        case .lockstep:
            guard let url, let token else { throw ValidationError("a Lockstep subscriber needs --url and --token") }
            return { tally, number in
                try await StreamSubscription.open(url: url, token: token, bucket: bucket, clientID: "subscriber-\(number)", tally: tally)
            }
        case .redis:
            guard let redisPort else { throw ValidationError("a Redis subscriber needs --redis-port") }
            return { tally, _ in try await RedisSubscription.open(port: redisPort, channel: bucket, tally: tally) }
        }
    }

    private func waitUntilDone(_ tallies: [SubscriptionTally], deadline: ContinuousClock.Instant) async throws {
        var received = -1
        var lastArrival = ContinuousClock.now
        var toldAt: ContinuousClock.Instant?
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            let counts = tallies.map { ($0.distinct, $0.hasEnded) }
            if expect > 0 && counts.allSatisfy({ $0.0 >= expect || $0.1 }) { return }
            let total = counts.reduce(0) { $0 + $1.0 }
            if total != received { (received, lastArrival) = (total, .now) }
            if toldAt == nil && writingEnded.load(ordering: .relaxed) { toldAt = .now }
            if let toldAt, ContinuousClock.now - max(toldAt, lastArrival) >= .seconds(quietSeconds) { return }
        }
    }
}

/// Set by SIGUSR1: the parent finished writing (or, in an idle run, holding).
private let writingEnded = Atomic<Bool>(false)
