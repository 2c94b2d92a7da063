import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepClient

/// `lockstep spaces --url URL --app A --token T <subcommand>`: spaces made, shared, listed, left
/// and deleted, as the token's user (or as the app's admin, with its admin token), through the
/// client SDK. Each invocation does one thing; a refusal is printed as the server gave it.
struct SpacesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spaces",
        abstract: "Make, share, list, leave and delete spaces.",
        discussion: "A space's bucket ITEMS is the bucket __SPACE.ITEMS for `lockstep client` and every other client.",
        subcommands: [
            SpacesCreate.self, SpacesList.self, SpacesShow.self, SpacesInvite.self, SpacesRemove.self, SpacesLeave.self, SpacesDelete.self,
        ])

    @OptionGroup var options: SpacesOptions
}

/// Which server and app, and who asks.
struct SpacesOptions: ParsableArguments {
    @Option(help: "The server's base URL, e.g. http://127.0.0.1:8080.")
    var url: String = "http://127.0.0.1:8080"

    @Option(help: "The app id.")
    var app: String = "default"

    @Option(help: "The user's access token (or the app's admin token).")
    var token: String = ""

    /// Runs `body` with a client of the server, turning what the server refused into a
    /// sentence. The SDK's client keeps a local store; these commands sync nothing, so theirs
    /// is a throwaway one, deleted afterwards.
    func withClient<T>(_ body: (LockstepClient) async throws -> T) async throws -> T {
        guard let server = URL(string: url) else { throw ValidationError("--url \(url) is not a URL") }
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-spaces-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let client = try LockstepClient(storeDirectory: store, server: server, app: app, token: token)
        do {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            switch error {
            case let refusal as SpaceError: throw CommandError(refusal.description)
            case let failure as LockstepClientError: throw CommandError(failure.description)
            default: throw error
            }
        }
    }
}

struct SpacesCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Make a space; you are its owner.")

    @ParentCommand var parent: SpacesCommand
    @Argument(help: "The space's name: 1 to 64 of a-z 0-9 _ -, beginning with a letter or digit.") var name: String

    func run() async throws {
        try await parent.options.withClient { try await $0.space(name).create() }
        say("created space \(name)")
    }
}

struct SpacesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Print your spaces and your role in each, one per line.")

    @ParentCommand var parent: SpacesCommand

    func run() async throws {
        for space in try await parent.options.withClient({ try await $0.spaces }) {
            say("\(space.name)\t\(space.role?.rawValue ?? "admin")")
        }
    }
}

struct SpacesShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print a space's members (and waiting invitations) and their roles, one per line.")

    @ParentCommand var parent: SpacesCommand
    @Argument(help: "The space.") var name: String

    func run() async throws {
        for member in try await parent.options.withClient({ try await $0.space(name).members }) {
            say("\(member.email)\t\(member.role.rawValue)")
        }
    }
}

struct SpacesInvite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite",
        abstract: "Add someone to a space by the email they sign in with, or change a member's role.",
        discussion: "An invitation to an address with no account yet waits, and takes effect when that account is created.")

    @ParentCommand var parent: SpacesCommand
    @Argument(help: "The space.") var name: String
    @Argument(help: "The email address (username) to invite.") var email: String
    @Option(name: .customLong("as"), help: ArgumentHelp("The role: reader, writer or owner.", valueName: "role")) var role: String

    func validate() throws {
        guard SpaceRole(rawValue: role) != nil else { throw ValidationError("--as must be reader, writer or owner, not \(role)") }
    }

    func run() async throws {
        let role = SpaceRole(rawValue: role) ?? .reader  // validate() refused anything else
        try await parent.options.withClient { try await $0.space(name).invite(email, as: role) }
        say("\(email) is a \(role.rawValue) of space \(name)")
    }
}

struct SpacesRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Take someone out of a space (or withdraw their invitation); they lose it at once.")

    @ParentCommand var parent: SpacesCommand
    @Argument(help: "The space.") var name: String
    @Argument(help: "The member's email address.") var email: String

    func run() async throws {
        try await parent.options.withClient { try await $0.space(name).remove(email) }
        say("removed \(email) from space \(name)")
    }
}

struct SpacesLeave: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "leave", abstract: "Leave a space.")

    @ParentCommand var parent: SpacesCommand
    @Argument(help: "The space.") var name: String

    func run() async throws {
        try await parent.options.withClient { try await $0.space(name).leave() }
        say("left space \(name)")
    }
}

struct SpacesDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a space and everything in it, for every member.")

    @ParentCommand var parent: SpacesCommand
    @Argument(help: "The space.") var name: String

    func run() async throws {
        try await parent.options.withClient { try await $0.space(name).delete() }
        say("deleted space \(name)")
    }
}
