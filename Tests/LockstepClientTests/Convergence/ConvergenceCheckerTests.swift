import Foundation
import Testing

/// The convergence checker (issue 21): generated histories of five devices (two of them also
/// meeting as peers) against real `lockstep serve` processes, with offline periods, a graceful
/// restart, a SIGKILL of the server while devices sync and a SIGKILL of a syncing client
/// process; at the end every device syncs until quiet, and every device and server node must
/// hold the same data, the data the merge rules choose from the history (see
/// ``ConvergenceOracle``). A failing seed prints its history and a shrunk one.
///
/// By default a few fixed seeds run (a couple of minutes on two cores). By hand:
///
/// ```sh
/// LOCKSTEP_CONVERGENCE_SEEDS=1000 swift test --skip-build --filter ConvergenceChecker
/// LOCKSTEP_CONVERGENCE_SEED=12345 LOCKSTEP_CONVERGENCE_SEEDS=1 …   # replay one seed
/// LOCKSTEP_CONVERGENCE_SEED=random …                               # seeds never tried before
/// ```
///
/// `LOCKSTEP_CONVERGENCE_STEPS` sets the steps per history (60), `LOCKSTEP_CONVERGENCE_SHRINK_SECONDS`
/// the time the shrinker may take (180). `LOCKSTEP_CONVERGENCE_PEER_TEXT=1` lets the peer devices
/// edit text too (text edits merge through peers since ``PeerTextMergeTests``; by default only
/// the other devices edit text, so that the seeds named here keep their histories). With
/// `LOCKSTEP_TEST_POSTGRES_URL`, histories also run on two server nodes sharing a PostgreSQL schema.
///
/// Each test has a time limit (``convergenceTimeLimit``), and within it each step, each part of
/// the end and each seed has one of its own (``RunWatch``): a run stuck in an await fails with
/// a report of the seed, the step, what it waited for and what it did, instead of hanging.
@Suite("Convergence checker", .serialized, .timeLimit(convergenceTimeLimit))
struct ConvergenceCheckerTests {
    @Test("generated histories on a SQLite server end identical everywhere, as the merge rules say")
    func sqlite() async throws {
        try await check(.sqlite, defaultSeeds: 8)
    }

    @Test("generated histories on two PostgreSQL nodes end identical everywhere, as the merge rules say")
    func postgresTwoNodes() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["LOCKSTEP_TEST_POSTGRES_URL"], !url.isEmpty else {
            let reason = "LOCKSTEP_TEST_POSTGRES_URL is not set, so the convergence checker did not run on PostgreSQL"
            if environment["CI"] != nil { Issue.record("\(reason) (and CI is set, where it must be)") }
            try Test.cancel(Comment(rawValue: reason))
        }
        try await check(.postgresTwoNodes, defaultSeeds: 3)
    }

    /// Seeds on which two PostgreSQL nodes ended, everywhere alike, with a whole-value member
    /// that was not the latest edit's. Seed 1006: a peer carried a device's set of a member
    /// and its later removal, but sent only the removal, which against its base removed
    /// nothing; the device's own copy of the set then landed after it (``CarriedChangeTests``).
    /// Once more under load: a removal rebased over another device's earlier removal was
    /// recorded as no edit, and an offline set stamped between them won (``RemovedTwiceTests``).
    /// Seed 1020: of two edits stamped alike, the one of the smaller client id (a carried
    /// change was recorded as its carrier's, not its author's).
    @Test("seeds that found defects on two PostgreSQL nodes", arguments: [UInt64(1_006), 1_020])
    func postgresDefectSeeds(seed: UInt64) async throws {
        guard let url = ProcessInfo.processInfo.environment["LOCKSTEP_TEST_POSTGRES_URL"], !url.isEmpty else {
            try Test.cancel("LOCKSTEP_TEST_POSTGRES_URL is not set")
        }
        let outcome = try await HistoryRunner.run(History.generate(seed: seed, nodes: 2), on: .postgresTwoNodes, patience: .seconds(20))
        #expect(outcome.problems.isEmpty, "seed \(seed):\n\(outcome.problems.joined(separator: "\n"))")
    }

    private func check(_ backend: ConvergenceBackend, defaultSeeds: Int) async throws {
        let settings = ConvergenceSettings(defaultSeeds: defaultSeeds, backend: backend)
        var totals = HistoryRunner.Faults()
        var time = Duration.zero
        var (checked, failed) = (0, 0)
        for seed in settings.seeds {
            let history = History.generate(seed: seed, count: settings.steps, nodes: backend.nodes, peerTextEdits: settings.peerTextEdits)
            let outcome = try await HistoryRunner.run(history, on: backend)
            checked += 1
            time += outcome.duration
            totals.add(outcome.faults)
            print("convergence \(backend) seed \(seed): \(outcome.applied)/\(history.steps.count) steps, \(outcome.faults), "
                + "\(outcome.duration.formatted()) — \(outcome.failed ? "FAILED" : "ok")")
            guard outcome.failed else { continue }
            failed += 1
            // The first failure is shrunk; later ones are listed with their seeds.
            guard failed == 1 else {
                Issue.record(Comment(rawValue: "convergence failed on \(backend), seed \(seed):\n\(outcome.problems.joined(separator: "\n"))"))
                continue
            }
            let shrunk = await HistoryShrinker.shrink(history, problems: outcome.problems, within: settings.shrinkBudget) { candidate in
                // Less patience than the first run: a history that does not converge costs it all.
                let again = try? await HistoryRunner.run(candidate, on: backend, patience: .seconds(15))
                return again.flatMap { $0.failed ? $0.problems : nil }
            }
            Issue.record(Comment(rawValue: """
                convergence failed on \(backend), seed \(seed) (replay: LOCKSTEP_CONVERGENCE_SEED=\(seed) LOCKSTEP_CONVERGENCE_SEEDS=1):
                \(outcome.problems.joined(separator: "\n"))
                \(history)
                shrunk in \(shrunk.runs) runs\(shrunk.complete ? "" : " (the time ran out before every step was tried)") to \(shrunk.history)
                which fails with:
                \(shrunk.problems.joined(separator: "\n"))
                """))
        }
        print("convergence \(backend): \(checked) seeds in \(time.formatted()), \(failed) failed; \(totals)")
    }
}

/// What the environment asks of the checker.
struct ConvergenceSettings {
    var seeds: [UInt64]
    var steps: Int
    var shrinkBudget: Duration
    /// Whether the peer devices edit text too (see ``History/generate(seed:count:nodes:clientKills:peerTextEdits:)``).
    var peerTextEdits: Bool

    init(defaultSeeds: Int, backend: ConvergenceBackend) {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["LOCKSTEP_CONVERGENCE_SEEDS"].flatMap(Int.init) ?? defaultSeeds
        // Fixed seeds by default, so that CI runs the same histories every time.
        let first: UInt64 = switch environment["LOCKSTEP_CONVERGENCE_SEED"] {
        case "random"?: UInt64.random(in: 0..<UInt64(UInt32.max))
        case let value?: UInt64(value) ?? 1
        case nil: backend == .sqlite ? 1 : 1_001
        }
        seeds = (0..<UInt64(max(0, count))).map { first + $0 }
        steps = environment["LOCKSTEP_CONVERGENCE_STEPS"].flatMap(Int.init) ?? 60
        peerTextEdits = environment["LOCKSTEP_CONVERGENCE_PEER_TEXT"] == "1"
        shrinkBudget = .seconds(environment["LOCKSTEP_CONVERGENCE_SHRINK_SECONDS"].flatMap(Int.init) ?? 180)
    }
}

extension HistoryRunner.Faults: CustomStringConvertible {
    mutating func add(_ other: Self) {
        restarts += other.restarts
        serverKills += other.serverKills
        serverKillsMidSync += other.serverKillsMidSync
        clientKills += other.clientKills
        offlinePeriods += other.offlinePeriods
        peerMeetings += other.peerMeetings
    }

    var description: String {
        "\(restarts) restarts, \(serverKills) server kills (\(serverKillsMidSync) with changes in flight), \(clientKills) client kills, "
            + "\(offlinePeriods) offline periods, \(peerMeetings) peer meetings"
    }
}

/// Each convergence test's limit: a CI run once sat idle for ten minutes after the PostgreSQL
/// seeds 1001–1003 had run (no server or client process left, nothing on the database), and
/// only a limit says which test it was. Seeds asked for by hand may take as long as they take.
let convergenceTimeLimit: TimeLimitTrait.Duration =
    ProcessInfo.processInfo.environment["LOCKSTEP_CONVERGENCE_SEEDS"] == nil ? .minutes(10) : .minutes(7 * 24 * 60)
