import ArgumentParser

/// `lockstep bench …`: benchmarks, built in release, that print figures.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure Lockstep: run these built in release (swift build -c release).",
        subcommands: [ClientBenchmark.self])
}
