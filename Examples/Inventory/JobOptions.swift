import ArgumentParser
import Foundation
import LockstepClient

/// Which phone this is: the server, the app, the mover's token and the phone's local store.
struct PhoneOptions: ParsableArguments {
    @Option(help: "The Lockstep server.") var server = "http://127.0.0.1:8080"
    @Option(help: "The app id.") var app: String
    @Option(help: "This mover's access token (lockstep tokens create --app APP --user EMAIL).") var token: String
    @Option(help: "This phone's local store: a directory, kept between runs.") var store: String

    /// Opens the local store; nothing touches the network until a command syncs.
    func open() throws -> LockstepClient {
        guard let url = URL(string: server) else { throw ValidationError("\(server) is not a URL") }
        var configuration = LockstepClient.Configuration()
        configuration.logger.logLevel = .error
        return try LockstepClient(storeDirectory: URL(fileURLWithPath: store), server: url, app: app, token: token, configuration: configuration)
    }
}

/// Which job: its items live in the space `job-<number>`, shared by the job's team alone.
struct JobOptions: ParsableArguments {
    @OptionGroup var phone: PhoneOptions
    @Option(help: "The job's number (a-z 0-9 _ -): its items live in the space job-<number>, shared with the job's team.")
    var job: String

    func validate() throws {
        // The space's naming rule, checked before anything is opened.
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_-")
        guard !job.isEmpty, job.count <= 60, job.allSatisfy(allowed.contains) else {
            throw ValidationError("a job's number is 1 to 60 of a-z 0-9 _ -")
        }
    }

    /// The job's space.
    var spaceName: String { "job-" + job }

    /// Opens the local store and the job's items; nothing touches the network until a command syncs.
    func open() throws -> (client: LockstepClient, items: TypedBucket<Item>) {
        let (client, space) = try openSpace()
        return (client, try space.bucket("items", of: Item.self))
    }

    /// The local store and the job's space, for the commands that manage its team.
    func openSpace() throws -> (client: LockstepClient, space: Space) {
        let client = try phone.open()
        return (client, try client.space(spaceName))
    }
}
