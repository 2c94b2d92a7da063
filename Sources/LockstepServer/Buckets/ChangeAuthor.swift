/// Who a change comes from, for what only its author may do (refer to a blob they uploaded).
public enum ChangeAuthor: Sendable, Hashable {
    /// A user, by id.
    case user(String)
    /// The admin token, or the server itself (presence removals, purchases).
    case trusted
}

extension AccountService.Identity {
    /// The author of the changes this identity sends.
    public var author: ChangeAuthor {
        isAdmin ? .trusted : .user(userID ?? "")
    }
}
