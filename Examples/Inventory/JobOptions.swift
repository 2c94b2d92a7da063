import ArgumentParser
import Foundation
import LockstepClient

/// Where the job lives: the server, the app and mover's token, the phone's local store, and
/// the team's shared bucket.
struct JobOptions: ParsableArguments {
    @Option(help: "The Lockstep server.") var server = "http://127.0.0.1:8080"
    @Option(help: "The app id.") var app: String
    @Option(help: "This mover's access token (lockstep tokens create --app APP --user NAME).") var token: String
    @Option(help: "This phone's local store: a directory, kept between runs.") var store: String
    @Option(help: "The job's bucket, shared by the team ({\"shared\": true}, set by the app's admin).") var job = "inventory"

    /// Opens the local store; nothing touches the network until a command syncs.
    func open() throws -> (client: LockstepClient, items: TypedBucket<Item>) {
        guard let url = URL(string: server) else { throw ValidationError("\(server) is not a URL") }
        var configuration = LockstepClient.Configuration()
        configuration.logger.logLevel = .error
        let client = try LockstepClient(
            storeDirectory: URL(fileURLWithPath: store), server: url, app: app, token: token, configuration: configuration)
        return (client, try client.bucket(job, of: Item.self))
    }
}
