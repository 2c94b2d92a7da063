/// One member of a space (or an invitation waiting for its address to sign up: the server lists
/// both alike), as ``Space/members`` lists them.
public struct SpaceMember: Sendable, Hashable {
    /// The username the member signs in with.
    public var email: String
    /// What the member may do.
    public var role: SpaceRole

    /// A member with this email and role.
    public init(email: String, role: SpaceRole) {
        self.email = email
        self.role = role
    }
}

/// A space this client's user belongs to, as ``LockstepClient/spaces`` lists them.
public struct SpaceMembership: Sendable, Hashable {
    /// The space's name: open it with ``LockstepClient/space(_:)``.
    public var name: String
    /// The user's role in it; `nil` for the app's admin token, which has every right in every
    /// space without being a member of any.
    public var role: SpaceRole?

    /// A membership with this space name and role.
    public init(name: String, role: SpaceRole?) {
        self.name = name
        self.role = role
    }
}
