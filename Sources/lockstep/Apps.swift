import ArgumentParser
import Foundation
import LockstepServer

struct Apps: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create and list apps.", subcommands: [Create.self, List.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app and print its credentials once.")

        @Argument(help: "A name for the app; its id starts with it.")
        var name: String

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let accounts = AccountService(store: try await storage.openStore(), limits: Limits(), now: { ServerClockSource().now() })
            let credentials = try await accounts.createApp(name: name)
            print("""
                Created app \(credentials.name). These secrets are shown once; only their hashes are stored:
                  app id:      \(credentials.appID)
                  API key:     \(credentials.apiKey)
                  admin token: \(credentials.adminToken)
                """)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the apps.")

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let apps = try await storage.openStore().apps()
            if apps.isEmpty { print("No apps yet: `lockstep serve` creates a default one, `lockstep apps create NAME` more.") }
            for app in apps {
                let created = Date(timeIntervalSince1970: Double(app.createdAt) / 1e9)
                print("\(app.id)\t\(app.name)\tcreated \(created.formatted(.iso8601))")
            }
        }
    }
}

struct Tokens: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Issue access tokens.", subcommands: [Create.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a token for a user without a password, creating the user if needed.")

        @Option(help: "The app id.")
        var app: String

        @Option(help: "The username.")
        var user: String

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let accounts = AccountService(store: try await storage.openStore(), limits: Limits(), now: { ServerClockSource().now() })
            do {
                let grant = try await accounts.issueToken(appID: app, username: user)
                print("token for \(grant.username) (user id \(grant.userID)): \(grant.accessToken)")
            } catch let error as AccountError {
                throw ValidationError(error.message)
            }
        }
    }
}
