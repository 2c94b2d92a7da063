/// What a member may do in a space.
///
/// | right | reader | writer | owner |
/// |---|---|---|---|
/// | read the space's buckets, receive their changes, list the members, leave | yes | yes | yes |
/// | write the space's buckets | | yes | yes |
/// | invite, change roles, remove members, delete the space | | | yes |
///
/// The app's admin token has every right in every space of its app.
public enum SpaceRole: String, Sendable, Hashable, CaseIterable {
    case reader
    case writer
    case owner

    public var canWrite: Bool { self != .reader }
    public var canManage: Bool { self == .owner }

    /// Reads a role as sent: `reader`, `writer` or `owner`; throws a 400 saying so otherwise.
    public init(parsing text: String?) throws(ChangeRejection) {
        guard let text, let role = SpaceRole(rawValue: text) else {
            throw ChangeRejection(.badRequest, "a role must be \"reader\", \"writer\" or \"owner\"")
        }
        self = role
    }
}
