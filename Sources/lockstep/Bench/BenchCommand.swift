import ArgumentParser

/// `lockstep bench …`: benchmarks that print figures. Build them in release
/// (`swift build -c release`); BENCHMARKS.md records results and the commands that made them.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Lockstep's speed and accuracy (build with -c release).",
        subcommands: [
            BenchDiff.self, BenchClock.self, BenchReleases.self, BenchStore.self, BenchHistory.self, FanoutBenchmark.self, ClientBenchmark.self,
            PeerBenchmark.self, BenchBlobs.self, FanoutSubscribers.self,
        ])
}
