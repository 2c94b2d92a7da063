import ArgumentParser
import CommandLineSupport
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
    static let configuration = CommandConfiguration(abstract: "Issue and revoke access tokens.", subcommands: [Create.self, Revoke.self])

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
                throw CommandError(error.message)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke one token, or every token of a user.",
            discussion: """
                Works on the database directly, while the server runs or not. Revoked tokens are refused at once \
                on every node; their open sockets close within the server's token check interval (a quarter second).
                """)

        @Option(help: "The app id.")
        var app: String

        @Option(help: "Revoke every token of this user.")
        var user: String?

        @Option(help: "Revoke this token.")
        var token: String?

        @OptionGroup var storage: StorageOptions

        func validate() throws {
            guard (user == nil) != (token == nil) else { throw ValidationError("name either --user or --token") }
        }

        func run() async throws {
            let accounts = AccountService(store: try await storage.openStore(), limits: Limits(), now: { ServerClockSource().now() })
            do {
                if let user {
                    let count = try await accounts.revokeTokens(appID: app, username: user)
                    print("revoked \(count) token\(count == 1 ? "" : "s") of \(user)")
                } else if let token {
                    guard try await accounts.revoke(tokenHash: Secrets.hash(token), appID: app) else {
                        throw CommandError("app \(app) has no such token (already revoked, or never issued)")
                    }
                    print("revoked the token")
                }
            } catch let error as AccountError {
                throw CommandError(error.message)
            }
        }
    }
}
