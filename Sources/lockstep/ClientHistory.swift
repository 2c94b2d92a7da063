import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepClient
import LockstepCore

/// `lockstep client … history BUCKET KEY`: an object's versions on the server, newest first,
/// one line each: version, commit time (UTC), author, client, ccid, and what a restore put back.
struct ClientHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Print an object's versions on the server: who made each, and when.")

    @ParentCommand var parent: ClientCommand
    @Argument(help: "The bucket.") var bucket: String
    @Argument(help: "The object's key.") var key: String
    @Option(help: "How many versions, newest first (1 to 100).") var limit = 20
    @Option(help: "Only versions before this one (to page on).") var before: Int?
    @Flag(help: "Print each version's data after its line.") var data = false

    func run() async throws {
        let versions = try await parent.options.withServer { client in
            try await client.bucket(bucket).versions(of: key, before: before, limit: limit)
        }
        for version in versions {
            let committed = Int64((version.committedAt.timeIntervalSince1970 * 1000).rounded()) * 1_000_000
            var line = "v\(version.version)\t\(TimeReading.iso8601(committed))\t\(version.author)\t\(version.clientID)\tccid \(version.changeID)"
            if version.isRemoval { line += "\tremoved" }
            if let from = version.restoredFrom { line += from == 0 ? "\trestore: removed, made after the moment" : "\trestored from v\(from)" }
            say(line)
            if data, let object = version.data { say("\t\(JSONValue.object(object))") }
        }
        if versions.isEmpty { say("no version of \(bucket)/\(key) is retained") }
    }
}

/// `lockstep client … compare BUCKET KEY FROM [TO]`: two versions compared by the server.
struct ClientCompare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare", abstract: "Print the jsondiff between two versions of an object, and each string that differs as text.")

    @ParentCommand var parent: ClientCommand
    @Argument(help: "The bucket.") var bucket: String
    @Argument(help: "The object's key.") var key: String
    @Argument(help: "The older version.") var from: Int
    @Argument(help: "The newer version (the current one by default).") var to: Int?

    func run() async throws {
        let comparison = try await parent.options.withServer { client in
            try await client.bucket(bucket).compare(key, from: from, to: to)
        }
        say("v\(comparison.from) → v\(comparison.to)")
        say(JSONSerializer(prettyPrinted: true).string(comparison.diff.json))
        for (place, diff) in comparison.text.sorted(by: { $0.key < $1.key }) {
            // Deleted text in [-…-], inserted in {+…+}, as `git diff --word-diff` writes them.
            let text = diff.edits.map { edit in
                switch edit.operation {
                case .equal: edit.text
                case .delete: "[-\(edit.text)-]"
                case .insert: "{+\(edit.text)+}"
                }
            }.joined()
            say("\(place): \(text)")
        }
    }
}

/// `lockstep client … restore BUCKET KEY VERSION`: the object put back to a version, as a change.
struct ClientRestore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Put an object back to one of its versions, as a new change every device receives.")

    @ParentCommand var parent: ClientCommand
    @Argument(help: "The bucket.") var bucket: String
    @Argument(help: "The object's key.") var key: String
    @Argument(help: "The version to put back.") var version: Int

    func run() async throws {
        let now = try await parent.options.withServer { client in
            try await client.bucket(bucket).restore(key, to: version)
        }
        say("\(bucket)/\(key) is at v\(now), with the data of v\(version)")
    }
}
