import ArgumentParser

/// `lockstep bench …`: benchmarks, built in release, that print figures.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure the server: run these built in release (swift build -c release).",
        subcommands: [BenchReleases.self])
}
