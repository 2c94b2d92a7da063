/// Who a change comes from: for what only its author may do (refer to a blob they uploaded),
/// and for history (each version records its author).
public enum ChangeAuthor: Sendable, Hashable {
    /// A user, by id.
    case user(String)
    /// The app's admin token (the console, `lockstep` commands), acting for a user or not.
    case admin
    /// The server itself (presence removals, purchases).
    case trusted

    /// The author as the stores keep it in `changes.author`: the user's id, `@admin` or
    /// `@server`. User ids are hexadecimal, so no user's id is either; a `NULL` there is an
    /// author nobody recorded (a change from before authors were kept, see ``init(stored:)``).
    package var stored: String {
        switch self {
        case .user(let id): id
        case .admin: "@admin"
        case .trusted: "@server"
        }
    }

    /// The author a stored `changes.author` names; `nil` for `NULL`, an author not known.
    package init?(stored: String?) {
        switch stored {
        case nil: return nil
        case "@admin": self = .admin
        case "@server": self = .trusted
        case let id?: self = .user(id)
        }
    }
}

extension AccountService.Identity {
    /// The author of the changes this identity sends: the admin token's are the admin's, also
    /// when it acts for a user (`X-Simperium-User`).
    public var author: ChangeAuthor {
        isAdmin ? .admin : .user(userID ?? "")
    }
}
