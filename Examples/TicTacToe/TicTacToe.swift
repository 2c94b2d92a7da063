import ArgumentParser
import Foundation
import LockstepClient

/// `tictactoe`: Simperium's tic-tac-toe tutorial on Lockstep, using only the public client API.
///
/// The lobby is app-wide: every running program is a player in the shared `player` bucket, and
/// challenges are objects in the shared `challenge` bucket. Both need the `shared` and
/// `presence: client` options, set once by the app's admin (see Examples/TicTacToe/README.md).
/// Each match is played in a space of its two players (`match-…`), made by the challenged
/// player, who invites the challenger by email: nobody else can read it.
@main
struct TicTacToe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tictactoe", abstract: "Play tic-tac-toe against whoever else is connected to the same Lockstep app.")

    @Option(help: "The Lockstep server.") var url = "http://127.0.0.1:8080"
    @Option(help: "The app id.") var app: String
    @Option(help: "A user's access token (lockstep tokens create --app APP --user EMAIL).") var token: String
    @Option(help: "The email the token's user signs in with: opponents invite you to a match's space by it.") var email: String
    @Option(help: "The name other players see.") var name = "player"
    @Option(help: "The local store (a new temporary one by default).") var store: String?
    @Flag(help: "Play random moves and print one line per event, for scripts and tests.") var headless = false
    @Option(help: "Games to finish before quitting (0: play forever).") var games = 0
    @Option(help: "Milliseconds a headless player thinks before each move.") var moveDelay = 300

    func run() async throws {
        guard let server = URL(string: url) else { throw ValidationError("\(url) is not a URL") }
        let directory = store.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("tictactoe-\(UUID().uuidString)")
        let client = try LockstepClient(storeDirectory: directory, server: server, app: app, token: token)
        let players = try client.bucket("player", of: Player.self)
        let challenges = try client.bucket("challenge", of: Challenge.self)
        for bucket in ["player", "challenge"] {
            let options = try await client.options(of: bucket)
            if !options.isShared || options.presence != .client {
                FileHandle.standardError.write(Data("""
                    warning: bucket \(bucket) should be shared with client presence ({"shared":true,"presence":"client"}); \
                    players will not see each other or will linger after quitting

                    """.utf8))
            }
        }
        await client.sync.start()

        let headless = headless
        let report: @Sendable (String) -> Void = { line in
            if headless {
                write(line + "\n")
            } else if let text = Self.describe(line) {
                write(text + "\n")
            }
        }
        let moves: any MoveSource = headless ? RandomMoves(delay: .milliseconds(moveDelay)) : TerminalMoves()
        var table = Table(
            client: client, players: players, challenges: challenges, name: name, email: email, moves: moves, report: report)
        while games == 0 || table.gamesPlayed < games {
            do {
                try await table.step()
            } catch let error as LockstepClientError {
                // The table moved under this player (a challenge was deleted as it wrote to it): look again.
                guard case .removed = error else { throw error }
                report("skipped \(error)")
            } catch let error as SpaceError {
                // The match's space went as this player wrote to it (its owner gave the match up).
                guard case .notFound = error else { throw error }
                report("skipped \(error)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await client.sync.waitUntilIdle(timeout: .seconds(10))
        await client.close()
        if store == nil { try? FileManager.default.removeItem(at: directory) }
    }

    /// What a person at the terminal is told of a table event.
    private static func describe(_ line: String) -> String? {
        let words = line.split(separator: " ").map(String.init)
        switch words.first {
        case "player": return "Waiting for an opponent…"
        case "playing": return "A game starts against \(words.last?.split(separator: "-").first ?? "someone")."
        case "result": return words[1] == "win" ? "You won!" : words[1] == "lose" ? "You lost." : "A draw."
        case "left": return "Your opponent left. Looking for another…"
        default: return nil
        }
    }
}
