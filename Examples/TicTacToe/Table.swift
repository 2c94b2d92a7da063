import Foundation
import LockstepClient

/// One player at the table: keeps its `Player` object in the lobby, finds opponents there, and
/// plays each match in a space of the match's two players.
///
/// Matchmaking follows the rules of Simperium's tic-tac-toe tutorial, in two presence buckets
/// shared by the whole app (the lobby), so a player who quits or crashes takes their objects
/// along:
///
/// - an eligible opponent is a player who is in no open challenge and is not yourself; to keep
///   two players from challenging each other at the same moment, a player only challenges
///   players whose key sorts after its own;
/// - a busy player deletes a challenge it did not want (it was challenged twice, or challenged
///   while challenging someone else);
/// - the challenged player takes a challenge by making a space `match-…`, inviting the
///   challenger by email as a writer, writing the empty board in the space's `game` bucket,
///   and naming the space on the challenge; from then on the game is played in the space,
///   which nobody else can read;
/// - a player whose challenge is deleted, or whose opponent's `Player` vanished, gives the
///   match up and looks again.
///
/// The table reads the local store on every tick, which the client keeps in step with the
/// server; every write goes through the client's outbox.
struct Table {
    let client: LockstepClient
    let players: TypedBucket<Player>
    let challenges: TypedBucket<Challenge>
    let name: String
    let email: String
    let moves: any MoveSource
    let report: @Sendable (String) -> Void

    /// The match this player is in: its challenge, and its space once taken.
    private struct Seat {
        var challenge: String
        var x: String
        var o: String
        var space: String?
        let since = ContinuousClock.now
        var opponentSeen = false
        /// Since when the match has looked given up (its challenge or the opponent gone).
        var offSince: ContinuousClock.Instant?

        func side(of player: String) -> String? { player == x ? "x" : player == o ? "o" : nil }
        func opponent(of player: String) -> String { player == x ? o : x }
        var label: String { space ?? challenge }
    }

    private(set) var me: String?
    private var seat: Seat?
    /// Challenges this player finished: the challenger deletes its own, a moment later.
    private var finished: Set<String> = []
    /// Matches this player said it is playing.
    private var announced: Set<String> = []
    /// The `game` bucket of each match space this player opened.
    private var games: [String: TypedBucket<Match>] = [:]
    private var challengeAfter = ContinuousClock.now
    private(set) var gamesPlayed = 0
    /// How long a challenge waits for its opponent's player object to show up at all.
    static let opponentPatience = Duration.seconds(5)
    /// How long a match that looks given up waits for a final board still on its way: the
    /// lobby and the match's space are different buckets, so a challenger that finished and
    /// quit may vanish from the lobby a moment before its last move arrives.
    static let lastMoveGrace = Duration.seconds(2)

    init(
        client: LockstepClient, players: TypedBucket<Player>, challenges: TypedBucket<Challenge>, name: String, email: String,
        moves: any MoveSource, report: @escaping @Sendable (String) -> Void
    ) {
        self.client = client
        self.players = players
        self.challenges = challenges
        self.name = name
        self.email = email
        self.moves = moves
        self.report = report
    }

    /// Looks at the table once and does what the rules say.
    mutating func step() async throws {
        try await keepPlayerAlive()
        guard let me else { return }
        let open = try challenges.list().filter { !finished.contains($0.key) }
        let mine = open.filter { $0.value.side(of: me) != nil }
        try await dropUnwanted(mine)
        let played = gamesPlayed
        if var seat {
            let challenge = mine.first { $0.key == seat.challenge }?.value
            if seat.space == nil, let space = challenge?.space { seat.space = space }
            self.seat = seat
            try await play(me: me, challengeOpen: challenge != nil)
        }
        // A game that just ended is counted before another is sought: the program may be done.
        if seat == nil && gamesPlayed == played { try await findMatch(open: open, me: me) }
    }

    /// Inserts this player, and again under a new key if the server removed it (the connection
    /// that held it dropped, and a deleted key cannot come back).
    private mutating func keepPlayerAlive() async throws {
        if let me, try players.get(me) != nil { return }
        let key = "\(name)-\(UUID().uuidString.prefix(8).lowercased())"
        try await players.put(key, Player(name: name, email: email), priority: .urgent)
        if me != nil { report("rejoined as \(key)") }
        me = key
        report("player \(key)")
    }

    /// Keeps one open challenge at most: the current one, or the one seen first.
    private mutating func dropUnwanted(_ mine: [(key: String, value: Challenge)]) async throws {
        let keep = seat?.challenge ?? mine.min { $0.key < $1.key }?.key
        for challenge in mine where challenge.key != keep {
            try await challenges.delete(challenge.key, priority: .urgent)
        }
        if seat == nil, let keep, let challenge = mine.first(where: { $0.key == keep })?.value {
            seat = Seat(challenge: keep, x: challenge.x, o: challenge.o, space: challenge.space)
        }
    }

    private mutating func play(me: String, challengeOpen: Bool) async throws {
        guard var seat, let side = seat.side(of: me) else { return }
        let opponent = seat.opponent(of: me)
        var match: Match?
        if let space = seat.space { match = try game(in: space).get(Self.boardKey) }
        if let match, match.isOver { return try await finish(match, me: me) }
        // A challenge deleted before it was taken was refused (or its challenger quit).
        if !challengeOpen && seat.space == nil { return try await giveUp(side: side) }

        let opponentHere = try players.get(opponent) != nil
        if opponentHere { seat.opponentSeen = true }
        let givenUp = !challengeOpen || (!opponentHere && seat.opponentSeen)
        seat.offSince = givenUp ? seat.offSince ?? .now : nil
        self.seat = seat
        if let offSince = seat.offSince, ContinuousClock.now - offSince > Self.lastMoveGrace {
            return try await giveUp(side: side)
        }
        if !seat.opponentSeen && ContinuousClock.now - seat.since > Self.opponentPatience {
            // The opponent left before its player object ever reached this one.
            return try await giveUp(side: side)
        }
        guard seat.opponentSeen, seat.offSince == nil else { return }

        guard let space = seat.space else {
            if side == "o" { try await take(seat, me: me) }
            return
        }
        guard let match else { return }  // the board is on its way
        if !announced.contains(space) {
            announced.insert(space)
            report("playing \(space) with \(opponent)")
        }
        guard match.turn == side, let cell = await moves.move(on: match.board, as: side) else { return }
        var next = match.board
        next.cells[cell] = side
        let board = next
        let outcome = board.outcome
        try await game(in: space).update(Self.boardKey, priority: .urgent) { match in
            match.board = board
            match.turn = side == "x" ? "o" : "x"
            match.winner = outcome ?? ""
        }
        report("move \(space) \(side) \(cell + 1)")
        if outcome != nil, let done = try game(in: space).get(Self.boardKey) {
            try await finish(done, me: me)
        }
    }

    /// The challenged player takes the challenge: a space for the match, the challenger
    /// invited to it, the empty board in it, and its name on the challenge.
    private mutating func take(_ seat: Seat, me: String) async throws {
        guard let challenger = try players.get(seat.x) else { return }
        let name = "match-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let space = try client.space(name)
        try await space.create()
        // Two programs of one account play each other as the space's one owner.
        if challenger.email != email { try await space.invite(challenger.email, as: .writer) }
        try await game(in: name).put(
            Self.boardKey, Match(x: seat.x, o: seat.o, board: .empty, turn: "x", winner: ""), priority: .urgent)
        do {
            try await challenges.update(seat.challenge, priority: .urgent) { $0.space = name }
        } catch LockstepClientError.removed {
            // The challenger dropped the challenge meanwhile: nobody will come.
            self.seat?.space = name
            return try await giveUp(side: "o")
        }
        self.seat?.space = name
        report("match \(name) x=\(seat.x) o=\(seat.o)")
    }

    /// Counts the game. The challenger then deletes the challenge, so both are free again in
    /// the lobby; the match's space stays, the record of the game.
    private mutating func finish(_ match: Match, me: String) async throws {
        guard let seat, !finished.contains(seat.challenge), let side = seat.side(of: me) else { return }
        finished.insert(seat.challenge)
        self.seat = nil
        gamesPlayed += 1
        let result = match.winner == "draw" ? "draw" : match.winner == side ? "win" : "lose"
        report("result \(result) \(seat.label)")
        if side == "x" { try await challenges.delete(seat.challenge, priority: .urgent) }
    }

    /// Gives the match up: its challenge goes from the lobby, and its space with it (its owner
    /// deletes it; the invited player leaves it), so no half-played game lingers.
    private mutating func giveUp(side: String) async throws {
        guard let seat else { return }
        self.seat = nil
        report("left \(seat.label)")
        if try challenges.get(seat.challenge) != nil { try await challenges.delete(seat.challenge, priority: .urgent) }
        guard let name = seat.space else { return }
        games[name] = nil
        let space = try client.space(name)
        do {
            if side == "o" { try await space.delete() } else { try await space.leave() }
        } catch SpaceError.notFound {
            // Already deleted by its owner.
        }
    }

    private mutating func findMatch(open: [(key: String, value: Challenge)], me: String) async throws {
        guard ContinuousClock.now >= challengeAfter else { return }
        let busy = Set(open.flatMap { [$0.value.x, $0.value.o] })
        guard let opponent = try players.list().map(\.key).filter({ $0 > me && !busy.contains($0) }).min() else { return }
        let key = "\(me)-vs-\(opponent)-\(UUID().uuidString.prefix(4).lowercased())"
        try await challenges.put(key, Challenge(x: me, o: opponent), priority: .urgent)
        // A challenge that the other side refuses is not repeated at once: others get a turn.
        challengeAfter = .now + .milliseconds(Int.random(in: 200...600))
    }

    /// The key of the one object of a match space's `game` bucket.
    static let boardKey = "board"

    private mutating func game(in space: String) throws -> TypedBucket<Match> {
        if let game = games[space] { return game }
        let game = try client.space(space).bucket("game", of: Match.self)
        games[space] = game
        return game
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
