import Foundation
import LockstepServer
import Testing

/// Generated histories of invitations, removals, leaving, writes, reads and reconnections
/// across three people and two nodes (``MembershipHistoryRunner`` says what is checked after
/// each step). A failing seed prints its history.
///
/// ```sh
/// LOCKSTEP_MEMBERSHIP_SEEDS=200 swift test --filter MembershipHistoryTests   # more seeds
/// LOCKSTEP_MEMBERSHIP_SEED=17 LOCKSTEP_MEMBERSHIP_SEEDS=1 …                  # replay one
/// ```
@Suite("Spaces: generated membership histories", .serialized, .timeLimit(.minutes(10)))
struct MembershipHistoryTests {
    private static let steps = 60

    @Test("on one SQLite server, as two nodes would be reached")
    func sqlite() async throws {
        for seed in Self.seeds(defaultCount: 6) {
            let server = try await TestServer.start()
            let outcome = await Self.play(seed: seed, nodes: [server, server])
            await server.stop()
            try outcome.get()
        }
    }

    @Test("on two PostgreSQL nodes, each step on either")
    func postgresTwoNodes() async throws {
        guard let url = ProcessInfo.processInfo.environment["LOCKSTEP_TEST_POSTGRES_URL"], !url.isEmpty else {
            let reason = "LOCKSTEP_TEST_POSTGRES_URL is not set, so membership histories did not run on two PostgreSQL nodes"
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("\(reason) (and CI is set, where it must be)") }
            try Test.cancel(Comment(rawValue: reason))
        }
        for seed in Self.seeds(defaultCount: 4) {
            var outcome: Result<Void, any Error> = .success(())
            try await TwoNodes.with { one, two in
                outcome = await Self.play(seed: seed, nodes: [one.server, two.server])
            }
            try outcome.get()
        }
    }

    /// Plays one seed; problems are recorded as issues with the history that showed them.
    private static func play(seed: UInt64, nodes: [TestServer]) async -> Result<Void, any Error> {
        let history = MembershipHistory.generate(seed: seed, count: steps, nodes: nodes.count)
        let runner = MembershipHistoryRunner(history, nodes: nodes)
        do {
            try await runner.run()
        } catch {
            Issue.record(Comment(rawValue: "membership history failed to run (\(error)) on \(history)"))
            return .failure(error)
        }
        print("membership history seed \(seed) on \(nodes[0].port == nodes[1].port ? "one node" : "two nodes"): \(runner.tally)")
        if !runner.problems.isEmpty {
            Issue.record(Comment(rawValue: runner.problems.joined(separator: "\n") + "\nin the history of \(history)"))
        }
        return .success(())
    }

    private static func seeds(defaultCount: Int) -> [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["LOCKSTEP_MEMBERSHIP_SEEDS"].flatMap(Int.init) ?? defaultCount
        let first = environment["LOCKSTEP_MEMBERSHIP_SEED"].flatMap(UInt64.init) ?? 1
        return (0..<UInt64(count)).map { first + $0 }
    }
}
