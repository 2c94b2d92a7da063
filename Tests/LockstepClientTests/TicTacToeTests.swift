import Foundation
import LockstepCore
import Testing

/// The tic-tac-toe example, as separate processes against a real server: presence in the
/// app-wide lobby, each match in a space of its two players.
@Suite("Example: tic-tac-toe")
struct TicTacToeTests {
    @Test("four players pair into two matches and finish their games")
    func fourPlayersFinish() async throws {
        let server = try await Self.startServer()
        let names = ["ann", "bob", "cat", "dan"]
        let seated = try await names.asyncMap { name in
            try await TicTacToePlayer.launch(server: server, name: name, extra: ["--games", "1", "--move-delay", "20"])
        }
        let players = seated.map(\.process)
        defer { for player in players { player.kill() } }

        var results: [String: [String]] = [:]  // match space → results reported for it
        for player in players {
            let result = await player.next(startingWith: "result ", within: .seconds(60))
            let line = try #require(result, "\(player.transcript)")
            let words = line.split(separator: " ").map(String.init)
            results[words[2], default: []].append(words[1])
        }
        #expect(results.count == 2, "\(results)")
        for outcomes in results.values {
            #expect(outcomes.sorted() == ["lose", "win"] || outcomes == ["draw", "draw"], "\(results)")
        }
        // Each match is its two players' alone: a player of the other match cannot read it.
        let spaces = results.keys.sorted()
        if spaces.count == 2 {
            for (space, other) in [(spaces[0], spaces[1]), (spaces[1], spaces[0])] {
                let members = try await server.request("GET", "__spaces__/\(other)", token: server.app.adminToken).json
                let emails = (members?["members"]?.arrayValue ?? []).compactMap { $0["email"]?.stringValue }
                let outsider = try #require(seated.first { emails.contains($0.email) })
                #expect(try await server.request("GET", "__\(space).game/index", token: outsider.token).status == 404)
            }
        }
        for player in players {
            let status = await player.exitStatus(within: .seconds(30))
            #expect(status == 0, "\(player.transcript)")
        }
        // Every player has gone, and presence took their objects along.
        try await eventually("the lobby is empty") {
            let players = try await server.objects("player", token: server.app.adminToken)
            let challenges = try await server.objects("challenge", token: server.app.adminToken)
            return players.isEmpty && challenges.isEmpty
        }
        await server.stop()
    }

    @Test("a killed player's objects vanish within 10 s and its opponent gives the match up and finds a new one")
    func killedPlayerIsReplaced() async throws {
        let server = try await Self.startServer()
        let players = try await ["ann", "bob", "cat"].asyncMap { name in
            try await ToolProcess.player(server: server, name: name, extra: ["--move-delay", "1500"])
        }
        defer { for player in players { player.kill() } }

        // Two of the three start a game (moves come slowly); the third waits.
        var playing: (player: ToolProcess, match: String, opponent: String)?
        let deadline = ContinuousClock.now + .seconds(60)
        while playing == nil && ContinuousClock.now < deadline {
            for player in players {
                if let line = await player.next(startingWith: "playing ", within: .milliseconds(100)) {
                    let words = line.split(separator: " ").map(String.init)
                    playing = (player, words[1], words[3])
                    break
                }
            }
        }
        let transcripts = players.map(\.transcript).joined(separator: "\n")
        let (victim, match, opponentKey) = try #require(playing, "\(transcripts)")
        let opponent = try #require(players.first { opponentKey.hasPrefix($0.name + "-") })
        let third = try #require(players.first { $0 !== victim && $0 !== opponent })

        // The opponent's own line about this game, so that the next one is about a new game.
        let sameGame = await opponent.next(startingWith: "playing ", within: .seconds(10))
        #expect(sameGame?.hasPrefix("playing \(match) ") == true, "\(opponent.transcript)")

        // The server removes what the victim's connection held (its player, a challenge it
        // made) as the connection ends: that is bounded. A challenge the opponent made to the
        // victim is the opponent's to give up, which it does after a grace period, on a machine
        // the suite keeps busy: that shows in the rematch.
        victim.kill()
        let killedAt = ContinuousClock.now
        try await eventually("the victim's player and the challenge it made are gone", timeout: .seconds(10)) {
            let left = try await server.objects("player", token: server.app.adminToken).values.compactMap { $0["name"]?.stringValue }
            let challenges = try await server.objects("challenge", token: server.app.adminToken).values
            return !left.contains(victim.name) && !challenges.contains { $0["x"]?.stringValue?.hasPrefix(victim.name + "-") == true }
        }
        #expect(ContinuousClock.now - killedAt < .seconds(10))
        let rematch = await opponent.next(startingWith: "playing ", within: .seconds(30))
        let thirdKey = await third.key(within: .seconds(5))
        #expect(rematch != nil && rematch == "playing \(rematch?.split(separator: " ")[1] ?? "") with \(thirdKey ?? "?")",
            "\(players.map(\.transcript).joined(separator: "\n"))")
        try await eventually("no challenge names the victim", timeout: .seconds(10)) {
            let challenges = try await server.objects("challenge", token: server.app.adminToken).values
            return !challenges.contains { challenge in ["x", "o"].contains { challenge[$0]?.stringValue?.hasPrefix(victim.name + "-") == true } }
        }
        await server.stop()
    }

    /// A server whose lobby, the `player` and `challenge` buckets, is shared with client presence.
    static func startServer() async throws -> TestServer {
        let server = try await TestServer.start()
        for bucket in ["player", "challenge"] {
            let (status, _) = try await server.request(
                "POST", "__options__/i/\(bucket)", token: server.app.adminToken, body: ["shared": true, "presence": "client"])
            #expect(status == 200)
        }
        return server
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

/// A `tictactoe --headless` program and the user it plays as.
struct TicTacToePlayer {
    let process: ToolProcess
    let email: String
    let token: String
}

extension ToolProcess {
    /// `tictactoe --headless` as `name`, a new user of the server's app.
    static func player(server: TestServer, name: String, extra: [String]) async throws -> ToolProcess {
        try await TicTacToePlayer.launch(server: server, name: name, extra: extra).process
    }
}

extension TicTacToePlayer {
    static func launch(server: TestServer, name: String, extra: [String]) async throws -> TicTacToePlayer {
        let email = "\(name)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let token = try await server.createUser(email)
        let process = try ToolProcess.launch(
            "tictactoe", name: name,
            arguments: ["--url", server.baseURL.absoluteString, "--app", server.appID, "--token", token, "--email", email, "--name", name,
                "--store", server.directory.appendingPathComponent("player-\(email)").path, "--headless"] + extra)
        return TicTacToePlayer(process: process, email: email, token: token)
    }
}
