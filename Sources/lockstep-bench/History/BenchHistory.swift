import ArgumentParser

/// `lockstep-bench history …`: what history costs and how fast it is used. `size` (the default,
/// so `lockstep-bench history --snapshot-intervals …` works as before) measures keeping it;
/// `restore` putting a bucket back to a moment; `write-cost` what recording each version's
/// author and time adds to the write path.
struct BenchHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "History: its size on disk and read times (size), restoring a bucket (restore), the write path's cost of authors (write-cost).",
        subcommands: [HistorySize.self, HistoryRestore.self, HistoryWriteCost.self],
        defaultSubcommand: HistorySize.self)
}
