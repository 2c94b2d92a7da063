/// What a store keeps of spaces: the spaces, their members by user id, and invitations by
/// email that become memberships when the user is created (``SyncStore/insertUser(_:)``
/// turns them into memberships in the same transaction).
///
/// Every change to members is decided inside one transaction, so two owners removing each
/// other at once never leave a space without an owner.
public protocol SpaceStore: Sendable {
    /// Whether other servers change members of the same spaces (nodes sharing PostgreSQL):
    /// then a node checks that it has heard of every change to a space's members before it
    /// serves the space (``SpaceService/catchUp(appID:spaceID:)``).
    var spacesAreShared: Bool { get }
    /// Inserts a space with `ownerID` as its first owner (`nil`: the admin made it, and it has
    /// no members yet); throws ``StoreError/duplicate(_:)`` when the app has a space of that name.
    func insertSpace(_ space: SpaceRecord, ownerID: String?) async throws
    func space(appID: String, name: String) async throws -> SpaceRecord?
    /// The spaces `memberID` is a member of, by name; every space of the app (with no role)
    /// when `memberID` is `nil`.
    func spaces(appID: String, memberID: String?) async throws -> [SpaceListing]
    /// The space's membership epoch (``SpaceMembership``); `nil` when there is no such space.
    func spaceMembershipEpoch(appID: String, spaceID: String) async throws -> Int64?
    /// A user's role in a space and the epoch it was given at; `nil` when they are not a member.
    func spaceMembership(appID: String, spaceID: String, userID: String) async throws -> SpaceMembership?
    /// Members and waiting invitations, by email.
    func spaceMembers(appID: String, spaceID: String) async throws -> [SpaceMember]
    /// Gives the user whose name has the canonical form of `email` (``Username/canonical(_:)``)
    /// `role` in the space; with no such user yet, an invitation waits for them. Answers
    /// ``SpaceMembershipChange/wouldLeaveNoOwner`` instead of demoting the last owner, and
    /// ``SpaceMembershipChange/notMember`` when the space was deleted meanwhile.
    func setSpaceRole(appID: String, spaceID: String, email: String, role: SpaceRole) async throws -> SpaceMembershipChange
    /// Removes the member (or the invitation) `email`; answers ``SpaceMembershipChange/wouldLeaveNoOwner``
    /// instead of removing the last owner.
    func removeSpaceMember(appID: String, spaceID: String, email: String) async throws -> SpaceMembershipChange
    /// Deletes the space, its members, its invitations and all of its buckets (objects,
    /// history, feed, presence claims); returns the ids of the users who were members.
    func deleteSpace(appID: String, spaceID: String) async throws -> [String]
}

extension SpaceStore {
    /// The role of a user in a space; `nil` when they are not a member.
    public func spaceRole(appID: String, spaceID: String, userID: String) async throws -> SpaceRole? {
        try await spaceMembership(appID: appID, spaceID: spaceID, userID: userID)?.role
    }
}
