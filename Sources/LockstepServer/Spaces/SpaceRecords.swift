/// A space: a named group of buckets shared by its members (see ``SpaceService``).
public struct SpaceRecord: Sendable, Equatable {
    public var appID: String
    /// Drawn at random when the space is made; its buckets are stored under it
    /// (``BucketScope/Owner/space(_:)``).
    public var id: String
    /// Unique in the app (see ``SpaceName``).
    public var name: String
    public var createdAt: Int64

    public init(appID: String, id: String, name: String, createdAt: Int64) {
        self.appID = appID
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }

    /// The storage of the space's bucket `bucket`.
    public func scope(bucket: String) -> BucketScope {
        BucketScope(appID: appID, owner: .space(id), bucket: bucket)
    }
}

/// A space as listed for someone: with their role, `nil` for the admin token.
public struct SpaceListing: Sendable, Equatable {
    public var space: SpaceRecord
    public var role: SpaceRole?

    public init(space: SpaceRecord, role: SpaceRole?) {
        self.space = space
        self.role = role
    }
}

/// A member of a space, or an invitation waiting for its user to be created.
///
/// Both are listed alike (by email and role): whether an address has an account in the app
/// is not the inviter's to learn.
public struct SpaceMember: Sendable, Equatable {
    /// The member's username, or the address an invitation waits for.
    public var email: String
    public var role: SpaceRole
    /// `nil` while the invitation waits.
    public var userID: String?

    public init(email: String, role: SpaceRole, userID: String?) {
        self.email = email
        self.role = role
        self.userID = userID
    }
}

/// A user's membership of a space: their role, and the space's membership epoch when it was
/// last given or changed.
///
/// Every change to a space's members moves the space's epoch on by one, in the transaction that
/// makes it. A channel remembers the epoch of the membership it was opened with, and a
/// revocation ends only the channels opened before it (``SpaceRevocation/epoch``): a node that
/// hears of a removal late, after the member was invited back and opened a channel again, ends
/// the old channel and leaves the new one.
public struct SpaceMembership: Sendable, Equatable {
    public var role: SpaceRole
    public var epoch: Int64

    public init(role: SpaceRole, epoch: Int64) {
        self.role = role
        self.epoch = epoch
    }
}

/// What a change to a space's members did, as the store decided it in one transaction.
public enum SpaceMembershipChange: Sendable, Equatable {
    /// The member (`userID`, or an invitation when `nil`) went from `from` (`nil`: not a
    /// member) to the role asked for, or was removed, at the space's membership epoch `epoch`
    /// (0 for an invitation, which no channel holds).
    case changed(userID: String?, from: SpaceRole?, epoch: Int64)
    /// The member already had that role.
    case unchanged
    /// There is no such member or invitation, or no longer such a space.
    case notMember
    /// Refused: the space would have no owner left.
    case wouldLeaveNoOwner
}
