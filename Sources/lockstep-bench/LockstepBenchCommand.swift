import ArgumentParser

/// `lockstep-bench …`: benchmarks that print figures, kept out of the `lockstep` tool that
/// users run. Build them in release (`swift build -c release`); BENCHMARKS.md records results
/// and the commands that made them.
@main
struct LockstepBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lockstep-bench",
        abstract: "Measure Lockstep's speed and accuracy against its peers (build with -c release).",
        subcommands: [
            BenchClock.self, BenchReleases.self, BenchStore.self, BenchHistory.self, FanoutBenchmark.self, ClientBenchmark.self,
            PeerBenchmark.self, BenchBlobs.self, FanoutSubscribers.self, BenchAuth.self,
        ])
}
