import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepClient
import LockstepCore

/// `lockstep client --store DIR --url URL --app A --token T <subcommand>`: the client SDK from the command line, for scripts and for poking at a
/// server by hand. Each invocation opens the store, does one thing, and closes it; `put` and
/// `delete` work with no server at all (the change waits in the outbox for `sync`).
struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Read and write a local client store, and sync it with a server.",
        subcommands: [
            ClientPut.self, ClientGet.self, ClientList.self, ClientDelete.self, ClientSync.self, ClientStatus.self, ClientAttach.self,
            ClientDownload.self, ClientHistory.self, ClientCompare.self, ClientRestore.self,
        ])

    @OptionGroup var options: ClientOptions
}

/// Where the store is and which server and app it syncs with.
struct ClientOptions: ParsableArguments {
    // Optional to the parser and required by `open()`: a required option of the parent would
    // make `lockstep client sync --help` fail on it and print the parent's help instead.
    @Option(help: "The client's store directory (created if needed); required.")
    var store: String?

    @Option(help: "The server's base URL, e.g. http://127.0.0.1:8080.")
    var url: String = "http://127.0.0.1:8080"

    @Option(help: "The app id.")
    var app: String = "default"

    @Option(help: "The user's access token.")
    var token: String = ""

    @Option(help: "The streaming endpoint, when it is not <url>/sock/1/<app>/websocket.")
    var socketURL: String?

    func open() throws -> LockstepClient {
        guard let store else { throw ValidationError("--store DIR is required: the client's store directory") }
        guard let server = URL(string: url) else { throw ValidationError("--url \(url) is not a URL") }
        var configuration = LockstepClient.Configuration()
        configuration.socketURL = socketURL.flatMap(URL.init(string:))
        return try LockstepClient(
            storeDirectory: URL(fileURLWithPath: store), server: server, app: app, token: token, configuration: configuration)
    }

    /// Runs `body`, which asks the server, with the store open; what the server refused becomes
    /// a sentence and a non-zero exit.
    func withServer<T>(_ body: (LockstepClient) async throws -> T) async throws -> T {
        let client = try open()
        do {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            switch error {
            case let refusal as HistoryError: throw CommandError(refusal.description)
            case let failure as LockstepClientError: throw CommandError(failure.description)
            default: throw error
            }
        }
    }
}

struct ClientPut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put", abstract: "Store a JSON object locally and queue it for the server.")

    @ParentCommand var parent: ClientCommand
    @Argument(help: "The bucket.") var bucket: String
    @Argument(help: "The object's key.") var key: String
    @Argument(help: "The object, as JSON.") var json: String
    @Flag(help: "Send this change before the others.") var urgent = false

    func run() async throws {
        guard case .object(let object) = try JSONValue(parsing: json) else { throw ValidationError("the data must be a JSON object") }
        let client = try parent.options.open()
        try await client.bucket(bucket).put(key, object, priority: urgent ? .urgent : .normal)
        await client.close()
    }
}

struct ClientGet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Print an object as the store holds it.")

    @ParentCommand var parent: ClientCommand
    @Argument(help: "The bucket.") var bucket: String
    @Argument(help: "The object's key.") var key: String

    func run() async throws {
        let client = try parent.options.open()
        let object = try client.bucket(bucket).get(key)
        await client.close()
        guard let object else { throw CommandError("\(bucket)/\(key) does not exist") }
        print(JSONValue.object(object))
    }
}

struct ClientList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Print every object of a bucket, one per line.")

    @ParentCommand var parent: ClientCommand
    @Argument(help: "The bucket.") var bucket: String

    func run() async throws {
        let client = try parent.options.open()
        for (key, object) in try client.bucket(bucket).list() { print("\(key)\t\(JSONValue.object(object))") }
        await client.close()
    }
}

struct ClientDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete an object locally (for good) and queue the removal.")

    @ParentCommand var parent: ClientCommand
    @Argument(help: "The bucket.") var bucket: String
    @Argument(help: "The object's key.") var key: String

    func run() async throws {
        let client = try parent.options.open()
        try await client.bucket(bucket).delete(key)
        await client.close()
    }
}

struct ClientSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Sync the store's buckets with the server, printing what arrives.")

    @ParentCommand var parent: ClientCommand
    @Option(help: "A bucket to sync besides those the store already has (repeatable).") var bucket: [String] = []
    @Flag(help: "Stop once everything is caught up and the outbox is empty.") var once = false
    @Option(help: "With --once, give up after this many seconds.") var timeout: Double = 60

    func run() async throws {
        let client = try parent.options.open()
        let buckets = try client.bucketNames + bucket
        let printers = try Set(buckets).map { name in
            let events = try client.bucket(name).events
            return Task {
                for await event in events where event.origin != .local {
                    say("\(event.origin)\t\(event.kind)\t\(name)/\(event.key)\t\(event.object.map { JSONValue.object($0).description } ?? "")")
                }
            }
        }
        // Uploads show as they go (queued behind data changes, then chunk by chunk).
        let display = ProgressDisplay()
        let transfers = client.transfers
        let shown = Task { for await step in transfers where step.direction == .upload { display.show(step) } }
        await client.sync.start()
        if once {
            do {
                try await client.sync.waitUntilIdle(timeout: .seconds(timeout))
            } catch {
                await client.close()
                throw error
            }
            await client.close()
            for printer in printers { await printer.value }
            await shown.value
            say("synced; \(try client.outbox.pending.count) pending")
        } else {
            for printer in printers { await printer.value }
        }
    }
}

struct ClientStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the store's buckets and the changes waiting in its outbox.")

    @ParentCommand var parent: ClientCommand

    func run() async throws {
        let client = try parent.options.open()
        print("client \(client.clientID)")
        print("buckets: \(try client.bucketNames.joined(separator: ", "))")
        let pending = try client.outbox.pending
        print("\(pending.count) pending")
        for change in pending + (try client.outbox.rejected) {
            let time = change.editTime.map { " t=\($0)" } ?? ""
            print("  #\(change.id) \(change.bucket)/\(change.key) \(change.operation.rawValue) \(change.status) \(change.priority) ccid=\(change.changeID)\(time)")
        }
        let uploads = try client.uploads
        print("\(uploads.count) uploads")
        for upload in uploads {
            let failure = if case .failed(let error) = upload.state { " failed: \(error)" } else { "" }
            print("  sha256:\(upload.attachment.sha256) \(upload.completedBytes)/\(upload.totalBytes)\(failure)")
        }
        await client.close()
    }
}
