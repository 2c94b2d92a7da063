import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepCore
import LockstepPostgres
import LockstepServer
import Logging

/// Durable changes per second through the server, beside what the disk allows, in one run.
struct BenchStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Durable changes per second: the server's group commit beside a raw batched write and one flush per change.",
        discussion: """
            For each store (SQLite, and PostgreSQL when given a database), three figures from one run: \
            raw: the same rows (a change and its object) written by this process straight into a fresh \
            database of Lockstep's schema, --batch changes per transaction, with the store's durability \
            (SQLite WAL synchronous=FULL; PostgreSQL's commit); one flush per change: the store's commit \
            with groups of one change, from --connections concurrent writers (the write path before group \
            commit); server: `lockstep serve` in a child process, and --connections streaming connections \
            from this process, each on its own bucket, pipelining its changes (framed before the clock starts, \
            --frames-per-write at a time); a change counts once the server acknowledged it, which it does only when its \
            group is durable. The server's CPU time per change is measured from /proc, and this process's beside it. \
            Raw and server are measured --rounds times, alternated, each on fresh stores: the round whose server ÷ raw \
            is the median is the one reported, and every round's ratio is listed.
            """)

    @Option(help: "Streaming connections (and concurrent writers of the one-flush figure).")
    var connections = 100

    @Option(help: "Changes through the server per store.")
    var changes = 20_000

    @Option(name: .customLong("single-flush-changes"), help: "Changes of the one-flush-per-change figure.")
    var singleFlushChanges = 1_000

    @Option(
        name: .customLong("frames-per-write"),
        help: """
            Messages each connection writes and flushes at once. 10 of these changes (about 100 bytes each, framed) make about \
            one Ethernet segment, as a backlog sent over a network arrives; 1 sends every change in a loopback segment of its own.
            """)
    var framesPerWrite = 10

    @Option(help: "Changes sent through the server, untimed, before the measured ones: a history in its buckets, for costs that grow with it.")
    var history = 0

    @Option(help: "Rounds of the raw and server figures, alternated, each on fresh stores; the round of the median ratio is reported.")
    var rounds = 3

    @Option(help: "Changes per transaction of the raw baseline.")
    var batch = 1_000

    @Option(name: .customLong("database-url"), help: "A PostgreSQL database to measure too (env LOCKSTEP_DATABASE_URL); each run makes schemas bench_… in it.")
    var databaseURL: String?

    @Option(
        name: .customLong("server-wrapper"),
        help: "A command the server child runs under, for profiling (e.g. \"perf record -g -o server.perf --\").")
    var serverWrapper: String?

    func validate() throws {
        guard connections > 0, changes >= connections, singleFlushChanges > 0, batch > 0, framesPerWrite > 0, rounds > 0, history >= 0 else {
            throw ValidationError(
                "--connections, --changes, --single-flush-changes, --batch, --frames-per-write and --rounds must be positive, with at least one change per connection; --history at least 0")
        }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        say("\(changes) changes through the server from \(connections) connections; raw baseline in batches of \(batch); "
            + "\(singleFlushChanges) changes committed one per flush by \(connections) writers."
            + (history > 0 ? " The server's buckets first take \(history) changes, untimed; the raw and one-flush figures start fresh." : ""))
        say(Self.row("store", "figure", "changes", "seconds", "changes/s", "× one flush"))

        try await measure(name: "SQLite", stores: StoreFactory.sqlite(directory: directory))
        guard let url = databaseURL ?? ProcessInfo.processInfo.environment["LOCKSTEP_DATABASE_URL"] else {
            say("PostgreSQL: not measured (give --database-url)")
            return
        }
        try await measure(name: "PostgreSQL", stores: StoreFactory.postgres(url: url))
    }

    private func measure(name: String, stores: StoreFactory) async throws {
        let single = try await Self.singleFlush(try await stores.fresh(), changes: singleFlushChanges, writers: connections)
        // Raw and server alternate, each round on fresh stores, so that a round's ratio compares
        // neighbours in time; the round of the median ratio is the one reported.
        var rounds: [(raw: BenchRate, server: ServerLoad.Result)] = []
        for _ in 0..<self.rounds {
            let raw = try await RawBaseline.measure(stores.fresh(), changes: changes, batch: batch)
            let server = try await ServerLoad.measure(
                stores.fresh(), connections: connections, changes: changes, framesPerWrite: framesPerWrite, history: history,
                wrapper: serverWrapper?.split(separator: " ").map(String.init) ?? [])
            rounds.append((raw, server))
        }
        rounds.sort { $0.server.result.rate / $0.raw.rate < $1.server.result.rate / $1.raw.rate }
        let (raw, server) = rounds[rounds.count / 2]
        for (figure, result) in [("raw, batched", raw), ("one flush per change", single), ("server, group commit", server.result)] {
            say(Self.row(
                name, figure, String(result.changes), String(format: "%.2f", result.seconds), String(Int(result.rate.rounded())),
                String(format: "%.1f×", result.rate / single.rate)))
        }
        say("  \(name): server ÷ raw = \(String(format: "%.2f", server.result.rate / raw.rate)); "
            + "server ÷ one flush = \(String(format: "%.1f", server.result.rate / single.rate)); "
            + "mean group \(String(format: "%.1f", server.meanGroup)) changes; server CPU \(String(format: "%.0f", server.cpuPerChange)) µs per change (this process's \(String(format: "%.0f", server.generatorCPUPerChange))); "
            + "all sent after \(server.allSent) ms, the first answered after \(server.firstAnswered) ms")
        if rounds.count > 1 {
            say("  \(name): the median of \(rounds.count) rounds' server ÷ raw, "
                + rounds.map { String(format: "%.2f (%.0f/s ÷ %.0f/s)", $0.server.result.rate / $0.raw.rate, $0.server.result.rate, $0.raw.rate) }
                .joined(separator: ", "))
        }
    }

    /// Commits changes one per group (one transaction, one flush each) from concurrent writers.
    private static func singleFlush(_ store: StoreFactory.Fresh, changes: Int, writers: Int) async throws -> BenchRate {
        defer { Task { await store.close() } }
        let app = try await store.app()
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                let count = changes / writers + (writer < changes % writers ? 1 : 0)
                group.addTask {
                    let scope = BucketScope(appID: app, owner: .user("writer-\(writer)"), bucket: "bench")
                    for index in 0..<count {
                        let change = BenchChange.make(index: index, connection: writer)
                        let outcome = try await store.store.commit(
                            ChangeGroup(requests: [ChangeRequest(scope: scope, change: change)], time: Int64(index), limits: Limits()))
                        guard case .committed? = outcome.first else { throw CommandError("a bench commit was refused: \(outcome)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        return BenchRate(changes: changes, since: started)
    }

    static func row(_ cells: String...) -> String {
        zip(cells, [11, 22, 9, 9, 11, 12]).map { cell, width in cell.padding(toLength: max(width, cell.count), withPad: " ", startingAt: 0) }
            .joined(separator: " ")
    }
}

/// Changes over a time, and their rate.
struct BenchRate {
    var changes: Int
    var seconds: Double

    init(changes: Int, since started: ContinuousClock.Instant) {
        self.changes = changes
        let elapsed = ContinuousClock.now - started
        seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    var rate: Double { Double(changes) / seconds }
}

/// The change every figure writes: object `i % 10` of a bucket set to a small whole object.
enum BenchChange {
    static func data(index: Int) -> JSONObject {
        ["title": .string("item \(index)"), "count": .integer(Int64(index)), "done": .bool(index.isMultiple(of: 2))]
    }

    static func make(index: Int, connection: Int) -> IncomingChange {
        IncomingChange(
            key: "object-\(index % 10)", changeID: "c\(connection)-\(index)", clientID: "bench-\(connection)",
            operation: .modify(diff: nil, fullData: data(index: index)), sourceVersion: nil, editTime: Int64(index))
    }
}
