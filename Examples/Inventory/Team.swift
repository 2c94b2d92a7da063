import ArgumentParser
import LockstepClient

/// `inventory job …`: the job's team. A job is a space; its owner (the office, or the lead
/// mover) invites the movers on it as writers and the customer as a reader, by the email they
/// sign in with, and takes a mover off the job, whose phone then stops receiving it.
struct Job: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a job and manage who is on it.", subcommands: [CreateJob.self, Invite.self, RemoveMember.self, Members.self])
}

struct CreateJob: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Make the job, with you as its owner.")

    @OptionGroup var job: JobOptions

    func run() async throws {
        let (client, space) = try job.openSpace()
        try await closing(client) { try await space.create() }
        print("\(space.name): you own it; invite the team with `inventory job invite EMAIL`")
    }
}

struct Invite: AsyncParsableCommand {
    /// What a person on a job may do: movers edit the inventory, a customer follows it.
    enum Role: String, ExpressibleByArgument, CaseIterable {
        case writer, reader, owner

        var spaceRole: SpaceRole {
            switch self {
            case .writer: .writer
            case .reader: .reader
            case .owner: .owner
            }
        }
    }

    static let configuration = CommandConfiguration(
        abstract: "Put someone on the job by the email they sign in with (owners only); an account made later with that email joins then.")

    @OptionGroup var job: JobOptions
    @Argument(help: "Their email (their username).") var email: [String]
    @Option(name: .customLong("as"), help: "writer (a mover), reader (e.g. the customer) or owner.") var role: Role = .writer

    func run() async throws {
        let (client, space) = try job.openSpace()
        try await closing(client) {
            for email in email { try await space.invite(email, as: role.spaceRole) }
        }
        for email in email { print("\(email)\t\(role.rawValue)") }
    }
}

struct RemoveMember: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Take someone off the job (owners only): their phone stops receiving it and drops its copy.")

    @OptionGroup var job: JobOptions
    @Argument(help: "Their email.") var email: String

    func run() async throws {
        let (client, space) = try job.openSpace()
        try await closing(client) { try await space.remove(email) }
        print("\(email) is off job \(job.job)")
    }
}

struct Members: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Who is on the job, and as what (invitations waiting for an account included).")

    @OptionGroup var job: JobOptions

    func run() async throws {
        let (client, space) = try job.openSpace()
        let members = try await closing(client) { try await space.members }
        for member in members.sorted(by: { $0.email < $1.email }) { print("\(member.email)\t\(member.role.rawValue)") }
    }
}

struct Jobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The jobs you are on, and as what.")

    @OptionGroup var phone: PhoneOptions

    func run() async throws {
        let client = try phone.open()
        let spaces = try await closing(client) { try await client.spaces }
        for space in spaces where space.name.hasPrefix("job-") {
            print("\(space.name.dropFirst("job-".count))\t\(space.role?.rawValue ?? "admin")")
        }
    }
}

/// Runs `body`, then closes the client whether it threw or not, so that the store is left tidy.
func closing<T: Sendable>(_ client: LockstepClient, _ body: () async throws -> T) async throws -> T {
    do {
        let value = try await body()
        await client.close()
        return value
    } catch {
        await client.close()
        throw error
    }
}
