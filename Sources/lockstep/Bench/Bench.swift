import ArgumentParser

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the server: run in release (swift build -c release) and read the figures it prints.",
        subcommands: [FanoutBenchmark.self])
}
