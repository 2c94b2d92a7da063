import ArgumentParser
import CommandLineSupport
import Foundation

/// What recording each version's author and commit time costs the write path: the server's
/// figure of `bench store` for this build and for a baseline build without it, alternated.
struct HistoryWriteCost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write-cost",
        abstract: "The write path's cost of recording each version's author and time: this build's `lockstep serve` against --baseline's.",
        discussion: """
            Runs `bench store`'s server figure (--connections streaming connections pipelining --changes \
            changes, each acknowledged once its group is durable) --rounds times for each of two servers, \
            alternated and each on a fresh store: the `lockstep` beside this binary (or LOCKSTEP_BINARY) and \
            --baseline, a `lockstep` built from the commit before authors were recorded. The changes come \
            from a user's token, so each records a 32-digit user id. Reports every round, the medians of \
            changes per second and of the server's CPU per change, and how much more CPU this build spends a change.
            """)

    @Option(help: "A `lockstep` built without version authors (the commit before them), in release.") var baseline: String
    @Option(help: "Streaming connections.") var connections = 100
    @Option(help: "Changes through each server a round.") var changes = 20_000
    @Option(help: "Rounds for each server, alternated.") var rounds = 5
    @Option(name: .customLong("frames-per-write"), help: "Messages each connection writes at once (as `bench store`).") var framesPerWrite = 10
    @Option(name: .customLong("database-url"), help: "A PostgreSQL database to measure too (env LOCKSTEP_DATABASE_URL).")
    var databaseURL: String?

    func validate() throws {
        guard FileManager.default.isExecutableFile(atPath: baseline) else { throw ValidationError("--baseline \(baseline) is not an executable") }
        guard connections > 0, changes >= connections, rounds > 0, framesPerWrite > 0 else {
            throw ValidationError("--connections, --changes, --rounds and --frames-per-write must be positive, with a change per connection")
        }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var factories = [("SQLite", StoreFactory.sqlite(directory: directory))]
        if let url = databaseURL ?? ProcessInfo.processInfo.environment["LOCKSTEP_DATABASE_URL"] {
            factories.append(("PostgreSQL", try StoreFactory.postgres(url: url)))
        }
        let builds = [("baseline", baseline), ("authors", LockstepBinary.path)]
        say("\(changes) changes from \(connections) connections a round; \(rounds) rounds a build, alternated, each on a fresh store.")
        say(Self.row("store", "round", "build", "changes/s", "server CPU", "bench CPU", "mean group"))
        for (name, factory) in factories {
            var rates: [String: [Double]] = [:]
            var cpus: [String: [Double]] = [:]
            for round in 1...rounds {
                for (build, binary) in round.isMultiple(of: 2) ? builds.reversed() : builds {
                    let result = try await ServerLoad.measure(
                        try await factory.fresh(), connections: connections, changes: changes, framesPerWrite: framesPerWrite, binary: binary)
                    let rate = Double(result.result.changes) / result.result.seconds
                    rates[build, default: []].append(rate)
                    cpus[build, default: []].append(result.cpuPerChange)
                    say(Self.row(
                        name, String(round), build, String(format: "%.0f", rate), String(format: "%.1f µs", result.cpuPerChange),
                        String(format: "%.1f µs", result.generatorCPUPerChange), String(format: "%.0f", result.meanGroup)))
                }
            }
            func median(_ values: [Double]?) -> Double { (values ?? [0]).sorted()[(values?.count ?? 1) / 2] }
            for (build, _) in builds {
                say(Self.row(name, "median", build, String(format: "%.0f", median(rates[build])), String(format: "%.1f µs", median(cpus[build])), "", ""))
            }
            let cost = median(cpus["authors"]) / median(cpus["baseline"]) - 1
            let pace = median(rates["authors"]) / median(rates["baseline"]) - 1
            say("\(name): server CPU a change \(String(format: "%+.1f", cost * 100)) %, changes/s \(String(format: "%+.1f", pace * 100)) % with authors")
        }
    }

    static func row(_ cells: String...) -> String {
        zip(cells, [11, 7, 9, 10, 11, 10, 10]).map { cell, width in cell.padding(toLength: max(width, cell.count), withPad: " ", startingAt: 0) }
            .joined(separator: " ")
    }
}
