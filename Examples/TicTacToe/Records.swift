/// A player waiting or playing: one object per running program in the app-wide `player`
/// bucket (the lobby), held by its connection (client presence), so it vanishes when the
/// program does.
struct Player: Codable, Sendable, Equatable {
    var name: String
    /// The address the player signs in with: how an opponent invites them to a match's space.
    var email: String
}

/// An offer to play, in the app-wide `challenge` bucket, made by the challenger (who plays x)
/// and held by the challenger's connection. The challenged player takes it by making the
/// match's space, inviting the challenger, and writing the space's name here.
struct Challenge: Codable, Sendable, Equatable {
    /// The players' keys in the `player` bucket.
    var x: String
    var o: String
    /// The match's space, once the challenged player took the challenge.
    var space: String?

    func side(of player: String) -> String? {
        player == x ? "x" : player == o ? "o" : nil
    }

    func opponent(of player: String) -> String {
        player == x ? o : x
    }
}

/// The game itself: the one object of the `game` bucket of the match's space, which only its
/// two players can read or write. Made by the challenged player as the space is made; each
/// player writes it only on their own turn. A finished match stays as the record of the game.
struct Match: Codable, Sendable, Equatable {
    /// The players' keys in the `player` bucket.
    var x: String
    var o: String
    var board: Board
    /// Whose move it is: "x" or "o".
    var turn: String
    /// "" while playing; then "x", "o" or "draw".
    var winner: String

    var isOver: Bool { !winner.isEmpty }
}
