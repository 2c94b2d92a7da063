import ArgumentParser
import CommandLineSupport
import Foundation

struct FanoutBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "Write-to-delivered latency with many streaming subscribers on one shared bucket.",
        discussion: """
            Starts a server in this process on 127.0.0.1 over a temporary SQLite file (or uses --url), \
            connects the subscribers to one shared bucket and a writer that sends changes at a steady \
            rate, and reports the latency from each write to each delivery. A baseline round, the same \
            writes with one subscriber, runs first: compare the two on a busy machine, not the raw figures.

            With --spaces N, the same writes go instead to N groups of --members subscribers, one \
            group after another, in four rounds: on N app-wide shared buckets, on N spaces whose members \
            the subscribers are, on spaces again, on buckets again; the ratio of the pooled latencies \
            says what a space's rights cost per delivery.

            With --processes N, the server runs as a process of its own (`lockstep serve` of this \
            binary) and the subscribers in N child processes, so that the server's CPU time per \
            delivery and its memory are read from /proc apart from the load's; the same load then \
            runs against redis-server (--redis) as a baseline, twice: publishing only, and storing each change \
            with every write flushed to disk before it is answered or delivered (redis-aof), as Lockstep \
            commits a change before either. No baseline round. --rounds alternates the servers' order \
            round by round and reports the median of the rounds' ratios. With \
            --idle-sockets M, the child processes instead hold M silent connections for --seconds, \
            and the servers' memory is read before and after.
            """)

    @Option(help: "Subscribers on the shared bucket.")
    var subscribers = 1000

    @Option(name: .customLong("writes-per-second"), help: "Changes written per second.")
    var writesPerSecond = 50.0

    @Option(help: "How long each round writes, in seconds.")
    var seconds = 10.0

    @Option(name: .customLong("baseline-subscribers"), help: "Subscribers of the baseline round.")
    var baselineSubscribers = 1

    @Option(help: "Groups of the spaces comparison (0: the plain fan-out rounds).")
    var spaces = 0

    @Option(help: "Subscribers of each group, with --spaces: each a user of its own, and a member of every space.")
    var members = 5

    @Option(help: "A running server's URL, instead of one in this process (needs --app and --admin-token).")
    var url: String?

    @Option(help: "The app id, with --url.")
    var app: String?

    @Option(name: .customLong("admin-token"), help: "The app's admin token, with --url.")
    var adminToken: String?

    @Option(help: "Run the server and the subscribers in processes of their own, the subscribers spread over this many.")
    var processes: Int?

    @Option(help: "With --processes: how many times Lockstep and Redis are each measured, alternated; the median ratio is reported.")
    var rounds = 1

    @Option(help: "redis-server, for the baseline of --processes and --idle-sockets (skipped when not there).")
    var redis = "/usr/bin/redis-server"

    @Option(name: .customLong("idle-sockets"), help: "Instead of fan-out: hold this many idle streaming connections (in --processes processes, 2 unless given) and read the servers' memory.")
    var idleSockets: Int?

    func validate() throws {
        if let processes, processes < 1 { throw ValidationError("--processes must be at least 1") }
        if let idleSockets, idleSockets < 1 { throw ValidationError("--idle-sockets must be at least 1") }
        if (processes != nil || idleSockets != nil) && (url != nil || spaces > 0) {
            throw ValidationError("--processes and --idle-sockets start their own servers: not with --url or --spaces")
        }
        guard subscribers > 0, baselineSubscribers > 0, rounds > 0, writesPerSecond > 0, seconds > 0, spaces >= 0, members > 0 else {
            throw ValidationError("subscribers, members, rounds, writes per second and seconds must be positive")
        }
        if url != nil && (app == nil || adminToken == nil) { throw ValidationError("--url needs --app and --admin-token") }
    }

    func run() async throws {
        if let idleSockets {
            return try await IdleSockets(sockets: idleSockets, processes: processes ?? 2, holdSeconds: seconds, redisBinary: redis).run()
        }
        if let processes {
            return try await FanoutOverProcesses(
                subscribers: subscribers, processes: processes, writesPerSecond: writesPerSecond, seconds: seconds, redisBinary: redis,
                rounds: rounds
            ).run()
        }
        let target: BenchTarget
        if let url, let app, let adminToken {
            target = try await BenchTarget.remote(url: url, app: app, adminToken: adminToken)
        } else {
            target = try await BenchTarget.inProcess()
        }
        let writes = max(1, Int((writesPerSecond * seconds).rounded()))
        if spaces > 0 {
            try await compareSpaces(target: target, writes: writes)
            return await target.stop()
        }
        say("Fan-out: \(writes) writes at \(writesPerSecond)/s to one shared bucket; \(target.description)")
        say("The clients run in this process too, on \(ProcessInfo.processInfo.activeProcessorCount) cores.")
        say(Self.row("round", "subscribers", "deliveries", "p50 ms", "p99 ms", "max ms", "deliveries/s"))
        var results: [FanoutRound.Result] = []
        for (name, count) in [("baseline", baselineSubscribers), ("fan-out", subscribers)] {
            let round = FanoutRound(
                target: target, bucket: "fanout-\(name)-\(UUID().uuidString.prefix(8).lowercased())", subscribers: count,
                writesPerSecond: writesPerSecond, writes: writes)
            let result = try await round.run()
            results.append(result)
            say(Self.row(
                name, "\(count)", "\(result.deliveries)/\(writes * count)", Self.milliseconds(result.percentile(0.5)),
                Self.milliseconds(result.percentile(0.99)), Self.milliseconds(result.latencies.last ?? .zero),
                String(format: "%.0f", result.deliveriesPerSecond)))
        }
        let (baseline, fanout) = (results[0], results[1])
        say(String(
            format: "fan-out / baseline: p50 ×%.1f, p99 ×%.1f",
            fanout.percentile(0.5) / max(baseline.percentile(0.5), .nanoseconds(1)),
            fanout.percentile(0.99) / max(baseline.percentile(0.99), .nanoseconds(1))))
        await target.stop()
    }

    /// The same grouped load on shared buckets, then on spaces.
    private func compareSpaces(target: BenchTarget, writes: Int) async throws {
        var tokens: [String] = []
        for member in 0..<members {
            let grant = try await target.admin("token", body: ["username": .string(GroupFanoutRound.memberEmail(member))])
            guard let token = grant["access_token"]?.stringValue else { throw CommandError("the server issued no token: \(grant)") }
            tokens.append(token)
        }
        say("Fan-out to groups: \(writes) writes at \(writesPerSecond)/s, one group after another, to \(spaces) groups of \(members); \(target.description)")
        say("The clients run in this process too, on \(ProcessInfo.processInfo.activeProcessorCount) cores.")
        say(Self.row("round", "subscribers", "deliveries", "p50 ms", "p99 ms", "max ms", "deliveries/s"))
        // Four rounds, A B B A: whatever drifts during the run (the heap, the machine's load)
        // weighs on both kinds alike.
        var latencies: [GroupFanoutRound.Kind: [Duration]] = [:]
        for kind in [GroupFanoutRound.Kind.sharedBuckets, .spaces, .spaces, .sharedBuckets] {
            let round = GroupFanoutRound(
                target: target, kind: kind, groups: spaces, memberTokens: tokens, writesPerSecond: writesPerSecond, writes: writes)
            let result = try await round.run()
            latencies[kind, default: []] += result.latencies
            say(Self.row(
                kind.rawValue, "\(result.subscribers)", "\(result.deliveries)/\(writes * members)", Self.milliseconds(result.percentile(0.5)),
                Self.milliseconds(result.percentile(0.99)), Self.milliseconds(result.latencies.last ?? .zero),
                String(format: "%.0f", result.deliveriesPerSecond)))
        }
        func percentile(_ kind: GroupFanoutRound.Kind, _ fraction: Double) -> Duration {
            let sorted = (latencies[kind] ?? []).sorted()
            return sorted.isEmpty ? .zero : sorted[Int((fraction * Double(sorted.count - 1)).rounded())]
        }
        say(String(
            format: "spaces / shared buckets, both rounds of each pooled: p50 ×%.2f, p99 ×%.2f",
            percentile(.spaces, 0.5) / max(percentile(.sharedBuckets, 0.5), .nanoseconds(1)),
            percentile(.spaces, 0.99) / max(percentile(.sharedBuckets, 0.99), .nanoseconds(1))))
    }

    private static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.2f", duration / .milliseconds(1))
    }

    private static func row(_ cells: String...) -> String {
        zip(cells, [10, 12, 16, 9, 9, 9, 13]).map { cell, width in
            cell.count >= width ? cell : String(repeating: " ", count: width - cell.count) + cell
        }.joined(separator: " ")
    }
}
