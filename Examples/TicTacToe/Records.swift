/// A player waiting or playing: one object per running program in the shared `player` bucket,
/// held by its connection (client presence), so it vanishes when the program does.
struct Player: Codable, Sendable, Equatable {
    var name: String
}

/// A game between two players, in the shared `match` bucket, made by the challenger (who plays
/// x and moves first) and held by the challenger's connection.
struct Match: Codable, Sendable, Equatable {
    /// The players' keys in the `player` bucket.
    var x: String
    var o: String
    var board: Board
    /// Whose move it is: "x" or "o".
    var turn: String
    /// "" while playing; then "x", "o" or "draw".
    var winner: String
    /// Set by the challenged player (o) when it takes the match: x waits for it before moving.
    var accepted: Bool

    func side(of player: String) -> String? {
        player == x ? "x" : player == o ? "o" : nil
    }

    func opponent(of player: String) -> String {
        player == x ? o : x
    }

    var isOver: Bool { !winner.isEmpty }
}
