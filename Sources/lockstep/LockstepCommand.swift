import ArgumentParser

@main
struct LockstepCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lockstep",
        abstract: "Shared time and shared state for apps: the Lockstep server and the tools around it.",
        subcommands: [
            Serve.self, Apps.self, Tokens.self, Tail.self,
            DiffCommand.self, PatchCommand.self, TransformCommand.self, DiffBatchCommand.self,
            StoreCommand.self, ClientCommand.self, SpacesCommand.self, BucketsCommand.self, AuthCommand.self, WebhooksCommand.self,
            TimeCommand.self, Backup.self,
            Restore.self,
        ])
}
