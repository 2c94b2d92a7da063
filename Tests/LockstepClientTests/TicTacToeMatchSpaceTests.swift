import Foundation
import LockstepCore
import Testing

/// A tic-tac-toe match lives in a space of its two players: played to the end there, and
/// nobody else can read it.
@Suite("Example: tic-tac-toe match space")
struct TicTacToeMatchSpaceTests {
    @Test("two players play a match to the end inside its space; a third user cannot read it")
    func matchInItsSpace() async throws {
        let server = try await TicTacToeTests.startServer()
        defer { Task { await server.stop() } }
        let seated = try await ["ann", "bob"].asyncMap { name in
            try await TicTacToePlayer.launch(server: server, name: name, extra: ["--games", "1", "--move-delay", "20"])
        }
        defer { for player in seated { player.process.kill() } }
        let stranger = try await server.createUser("cat@example.com")
        let transcripts = { seated.map(\.process.transcript).joined(separator: "\n") }

        // Both players say which space they play in: the same one.
        var spaces: Set<String> = []
        for player in seated {
            let line = try #require(await player.process.next(startingWith: "playing ", within: .seconds(60)), "\(transcripts())")
            spaces.insert(String(line.split(separator: " ")[1]))
        }
        let space = try #require(spaces.count == 1 ? spaces.first : nil, "\(spaces)")
        #expect(space.hasPrefix("match-"))

        // Its members are the two players, the challenged one its owner; a third user gets what
        // any stranger gets for a space that does not exist.
        let answer = try await server.request("GET", "__spaces__/\(space)", token: seated[0].token)
        #expect(answer.status == 200)
        let members = (answer.json?["members"]?.arrayValue ?? []).compactMap { member -> String? in
            guard let email = member["email"]?.stringValue, let role = member["role"]?.stringValue else { return nil }
            return "\(email) \(role)"
        }
        #expect(Set(members.map { String($0.split(separator: " ")[0]) }) == Set(seated.map(\.email)), "\(members)")
        #expect(Set(members.map { String($0.split(separator: " ")[1]) }) == ["owner", "writer"], "\(members)")
        for path in ["__\(space).game/index", "__\(space).game/i/board", "__spaces__/\(space)"] {
            #expect(try await server.request("GET", path, token: stranger).status == 404, "\(path)")
        }

        // Played to the end: each reports the result of this match, and they agree.
        var results: [String: String] = [:]  // player's key → win, lose or draw
        for player in seated {
            let line = try #require(await player.process.next(startingWith: "result ", within: .seconds(60)), "\(transcripts())")
            let words = line.split(separator: " ").map(String.init)
            #expect(words[2] == space, "\(line)")
            results[try #require(await player.process.key(within: .seconds(5)))] = words[1]
        }
        for player in seated {
            #expect(await player.process.exitStatus(within: .seconds(30)) == 0, "\(player.process.transcript)")
        }

        // The finished match stays in the space, the record of the game, and says the same.
        let record = try #require(try await server.objects("__\(space).game", token: seated[1].token)["board"])
        let winner = try #require(record["winner"]?.stringValue)
        let (x, o) = (try #require(record["x"]?.stringValue), try #require(record["o"]?.stringValue))
        switch winner {
        case "draw": #expect(results == [x: "draw", o: "draw"])
        case "x": #expect(results == [x: "win", o: "lose"])
        case "o": #expect(results == [x: "lose", o: "win"])
        default: Issue.record("the match did not end: \(record)")
        }
        let cells = record["board"]?["cells"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(cells.count == 9 && cells.contains("x"), "\(record)")
        #expect(try await server.request("GET", "__\(space).game/index", token: stranger).status == 404)
    }
}
