import Foundation
import Synchronization
import LockstepClient

/// One player at the table: keeps its `Player` object alive, finds opponents, plays its moves.
///
/// Matchmaking follows the rules of Simperium's tic-tac-toe tutorial, with everything shared
/// through two presence buckets, so a player who quits or crashes takes their objects along:
///
/// - an eligible opponent is a player who is in no unfinished match and is not yourself; to keep
///   two players from challenging each other at the same moment, a player only challenges
///   players whose key sorts after its own;
/// - a busy player deletes a match it did not want (it was challenged twice, or challenged
///   while challenging someone else);
/// - a player whose match is deleted, or whose opponent's `Player` vanished, looks again.
///
/// The table reads the local store on every tick, which the client keeps in step with the
/// server; every write goes through the client's outbox.
struct Table {
    let players: TypedBucket<Player>
    let matches: TypedBucket<Match>
    let name: String
    let moves: any MoveSource
    let report: @Sendable (String) -> Void
    /// Every version of a match this player heard of: a match can end and be deleted between
    /// two looks at the table, and the player must still learn how it ended.
    let history: MatchHistory

    private(set) var me: String?
    private var current: String?
    private var currentSince = ContinuousClock.now
    private var opponentSeen = false
    private var finished: Set<String> = []
    /// Matches this player said it is playing (both players agreed to them).
    private var announced: Set<String> = []
    private var challengeAfter = ContinuousClock.now
    private(set) var gamesPlayed = 0
    /// How long a match waits for its opponent's player object to show up at all.
    static let opponentPatience = Duration.seconds(5)

    init(players: TypedBucket<Player>, matches: TypedBucket<Match>, name: String, moves: any MoveSource, report: @escaping @Sendable (String) -> Void) {
        self.players = players
        self.matches = matches
        self.name = name
        self.moves = moves
        self.report = report
        history = MatchHistory(matches: matches)
    }

    /// Looks at the table once and does what the rules say.
    mutating func step() async throws {
        try await keepPlayerAlive()
        guard let me else { return }
        if let current, let match = try matches.get(current) ?? history.last(current), match.isOver {
            try await finish(current, match, me: me)
        }
        let live = try matches.list().filter { !$0.value.isOver && !finished.contains($0.key) }
        let mine = live.filter { $0.value.side(of: me) != nil }
        try await dropUnwanted(mine)
        if let current, let match = mine.first(where: { $0.key == current })?.value {
            try await play(current, match, me: me)
        } else {
            // Gone or over since the first look: the last version this player heard of says which.
            if let current, let last = history.last(current), last.isOver {
                try await finish(current, last, me: me)
            } else if let current {
                report("left \(current)")
                self.current = nil
            }
            try await findMatch(live: live, me: me)
        }
    }

    /// Inserts this player, and again under a new key if the server removed it (the connection
    /// that held it dropped, and a deleted key cannot come back).
    private mutating func keepPlayerAlive() async throws {
        if let me, try players.get(me) != nil { return }
        let key = "\(name)-\(UUID().uuidString.prefix(8).lowercased())"
        try await players.put(key, Player(name: name), priority: .urgent)
        if me != nil { report("rejoined as \(key)") }
        me = key
        report("player \(key)")
    }

    /// Keeps one unfinished match at most: the current one, or the one seen first.
    private mutating func dropUnwanted(_ mine: [(key: String, value: Match)]) async throws {
        let keep = current.flatMap { current in mine.first { $0.key == current } } ?? mine.min { $0.key < $1.key }
        for match in mine where match.key != keep?.key {
            try await matches.delete(match.key, priority: .urgent)
        }
        if let keep, current != keep.key {
            current = keep.key
            currentSince = .now
            opponentSeen = false
            report("match \(keep.key) x=\(keep.value.x) o=\(keep.value.o)")
        }
    }

    private mutating func play(_ key: String, _ match: Match, me: String) async throws {
        let opponent = match.opponent(of: me)
        if try players.get(opponent) != nil {
            opponentSeen = true
        } else if opponentSeen || ContinuousClock.now - currentSince > Self.opponentPatience {
            // The opponent's program is gone, and the server removed its player: look again.
            // (A player never seen at all left before its object reached this one.)
            report("opponent left \(key)")
            try await matches.delete(key, priority: .urgent)
            current = nil
            return
        }
        if opponentSeen && !match.accepted && match.side(of: me) == "o" {
            try await matches.update(key, priority: .urgent) { $0.accepted = true }
            return
        }
        // The game is on once both agree: for x, when o accepted; for o, when x made a move.
        let agreed = match.side(of: me) == "x" ? match.accepted : match.board.cells.contains("x")
        if opponentSeen && agreed && !announced.contains(key) {
            announced.insert(key)
            report("playing \(key) with \(opponent)")
        }
        guard opponentSeen, match.accepted, let side = match.side(of: me), match.turn == side else { return }
        guard let cell = await moves.move(on: match.board, as: side) else { return }
        var next = match.board
        next.cells[cell] = side
        let board = next
        let outcome = board.outcome
        try await matches.update(key, priority: .urgent) { match in
            match.board = board
            match.turn = side == "x" ? "o" : "x"
            match.winner = outcome ?? ""
        }
        report("move \(key) \(side) \(cell + 1)")
        if outcome != nil, let done = try matches.get(key) {
            try await finish(key, done, me: me)
        }
    }

    /// Counts the game; the player who did not make the last move deletes the match once it
    /// has seen the result, so both players always see how it ended.
    private mutating func finish(_ key: String, _ match: Match, me: String) async throws {
        guard !finished.contains(key), let side = match.side(of: me) else { return }
        finished.insert(key)
        current = nil
        gamesPlayed += 1
        let result = match.winner == "draw" ? "draw" : match.winner == side ? "win" : "lose"
        report("result \(result) \(key)")
        if match.turn != side { return }
        try await matches.delete(key, priority: .urgent)
    }

    private mutating func findMatch(live: [(key: String, value: Match)], me: String) async throws {
        guard ContinuousClock.now >= challengeAfter else { return }
        let busy = Set(live.flatMap { [$0.value.x, $0.value.o] })
        guard let opponent = try players.list().map(\.key).filter({ $0 > me && !busy.contains($0) }).min() else { return }
        let key = "\(me)-vs-\(opponent)-\(UUID().uuidString.prefix(4).lowercased())"
        try await matches.put(key, Match(x: me, o: opponent, board: .empty, turn: "x", winner: "", accepted: false), priority: .urgent)
        // A challenge that the other side refuses is not repeated at once: others get a turn.
        challengeAfter = .now + .milliseconds(Int.random(in: 200...600))
    }
}

/// Where a player's moves come from: a person at the terminal, or the computer.
protocol MoveSource: Sendable {
    /// The cell (0–8) to play on `board` as `side`, or `nil` to wait for the next tick.
    func move(on board: Board, as side: String) async -> Int?
}

/// Plays a random free cell after a pause, so that games can be watched (and interrupted).
struct RandomMoves: MoveSource {
    var delay: Duration

    func move(on board: Board, as side: String) async -> Int? {
        try? await Task.sleep(for: delay)
        return board.freeCells.randomElement()
    }
}

/// The latest version of each match, from the bucket's events as they happen.
final class MatchHistory: Sendable {
    private let latest = Mutex<[String: Match]>([:])

    /// Starts hearing the bucket's events; the history stops when the client closes.
    init(matches: TypedBucket<Match>) {
        let events = matches.events
        Task { [weak self] in
            for await event in events {
                guard let match = try? event.object(as: Match.self) else { continue }
                guard let self else { return }
                self.latest.withLock { $0[event.key] = match }
            }
        }
    }

    func last(_ key: String) -> Match? {
        latest.withLock { $0[key] }
    }
}
