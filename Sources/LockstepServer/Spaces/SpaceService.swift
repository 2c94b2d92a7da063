import LockstepCore

/// Spaces: made, shared, left and deleted, with the rights of ``SpaceRole`` checked here, in
/// one place, for every route.
///
/// A caller who is not a member (a stranger, or a member removed) gets exactly the answer a
/// space that does not exist gets, `404 there is no space <name>`: nothing tells them whether
/// it exists, who is in it or what it holds. (Making a space under a taken name is the one
/// answer that says the name is taken, as signing up under a taken username does.)
///
/// Losing a space takes effect at once: the member's open channels on it end, with an error
/// frame naming the space (``SpaceChannels``), and what they held in its presence buckets is
/// released (``ConnectionRegistry/Event/spaceLeft(appID:spaceID:userID:)``). On PostgreSQL
/// the other nodes hear of it through the change relay and do the same.
public struct SpaceService: Sendable {
    let store: any SyncStore
    let channels: SpaceChannels
    let connections: ConnectionRegistry
    let limits: Limits
    let now: @Sendable () -> Int64
    /// Records `space.member` webhook events; `nil` records none.
    var webhooks: WebhookRecorder? = nil

    /// A space and what the caller may do in it.
    public struct Grant: Sendable, Equatable {
        public var space: SpaceRecord
        /// The caller's role; ``SpaceRole/owner`` for the admin token.
        public var role: SpaceRole
        /// The epoch of the caller's membership (``SpaceMembership``); 0 for the admin token,
        /// whose channels end only with the space.
        public var epoch: Int64
    }

    /// Makes a space with the caller as its owner (the admin token's spaces start with no members).
    public func create(name: String, by identity: AccountService.Identity) async throws -> SpaceListing {
        try SpaceName.validate(name)
        if identity.userID != nil, !identity.isAdmin, limits.maximumSpacesPerUser > 0 {
            let held = try await store.spaces(appID: identity.appID, memberID: identity.userID).count
            guard held < limits.maximumSpacesPerUser else {
                throw AccountError(
                    .forbidden, "you are a member of \(held) spaces, the most a user may be (\(limits.maximumSpacesPerUser)): leave or delete one first")
            }
        }
        let space = SpaceRecord(appID: identity.appID, id: Secrets.randomHex(), name: name, createdAt: now())
        do {
            try await store.insertSpace(space, ownerID: identity.userID)
        } catch StoreError.duplicate {
            throw AccountError(.conflict, "the space name \(name) is taken: choose another")
        }
        if let owner = identity.userID, let username = identity.username {
            await memberEvent(space, email: username, userID: owner, role: .owner, previous: nil, by: identity)
        }
        return SpaceListing(space: space, role: identity.userID == nil ? nil : .owner)
    }

    /// The caller's spaces with their role; every space of the app for the admin token.
    public func list(for identity: AccountService.Identity) async throws -> [SpaceListing] {
        try await store.spaces(appID: identity.appID, memberID: identity.userID)
    }

    /// The caller's role in a space, or the same 404 as for a space that does not exist.
    public func grant(_ identity: AccountService.Identity, space name: String) async throws -> Grant {
        try await grant(identity, space: name, orElse: AccountError(.notFound, "there is no space \(name)"))
    }

    /// The caller's role in a space, or `notFound` for a space that does not exist and for one
    /// the caller is not a member of alike.
    func grant(_ identity: AccountService.Identity, space name: String, orElse notFound: some Error) async throws -> Grant {
        guard SpaceName.isValid(name), let space = try await store.space(appID: identity.appID, name: name) else { throw notFound }
        if identity.isAdmin { return Grant(space: space, role: .owner, epoch: 0) }
        guard let userID = identity.userID,
            let membership = try await store.spaceMembership(appID: identity.appID, spaceID: space.id, userID: userID)
        else { throw notFound }
        return Grant(space: space, role: membership.role, epoch: membership.epoch)
    }

    /// The caller's role in a space and its members (and waiting invitations), for any member.
    public func members(of name: String, for identity: AccountService.Identity) async throws -> (grant: Grant, members: [SpaceMember]) {
        let grant = try await grant(identity, space: name)
        return (grant, try await store.spaceMembers(appID: grant.space.appID, spaceID: grant.space.id))
    }

    /// Gives `email` `role`: a member's role changes, anyone else becomes a member (or an
    /// invitation waits for their account). A member whose role changes loses their open
    /// channels on the space, which were opened with the old role. Returns the address as
    /// stored (NFC).
    public func invite(_ email: String?, as role: SpaceRole, to name: String, by identity: AccountService.Identity) async throws -> String {
        let grant = try await managing(name, identity, "inviting")
        let address = try InvitationAddress.validate(email)
        if limits.maximumMembersPerSpace > 0 {
            let members = try await store.spaceMembers(appID: identity.appID, spaceID: grant.space.id)
            let isNew = !members.contains { Username.canonical($0.email) == Username.canonical(address) }
            guard !isNew || members.count < limits.maximumMembersPerSpace else {
                throw AccountError(
                    .forbidden,
                    "space \(name) has \(members.count) members and invitations, the most a space may have (\(limits.maximumMembersPerSpace)): remove one first")
            }
        }
        // A member's channels end before their role changes, so no write of the old role lands after it.
        var member: String?
        if let existing = try await store.user(appID: identity.appID, username: address),
            let current = try await store.spaceRole(appID: identity.appID, spaceID: grant.space.id, userID: existing.id), current != role
        {
            member = existing.id
        }
        let change = try await revoking(grant.space.revocation(of: member, .roleChanged, epoch: nil), if: member != nil) {
            try await store.setSpaceRole(appID: identity.appID, spaceID: grant.space.id, email: address, role: role)
        }
        if case .changed(let userID, let previous, _) = change {
            await memberEvent(grant.space, email: address, userID: userID, role: role, previous: previous, by: identity)
        }
        switch change {
        case .changed(let userID?, from: .some, let epoch):
            enforce(grant.space.revocation(of: userID, .roleChanged, epoch: epoch))
        case .wouldLeaveNoOwner:
            throw AccountError(.conflict, "\(address) is the last owner of space \(name): make another owner first, or delete the space")
        case .notMember:
            throw AccountError(.notFound, "there is no space \(name)")
        case .changed, .unchanged:
            break
        }
        return address
    }

    /// Removes a member (or an invitation); only owners and the admin token remove others.
    public func remove(_ email: String, from name: String, by identity: AccountService.Identity) async throws {
        let grant = try await managing(name, identity, "removing members")
        try await remove(email, from: grant.space, shownAs: email, by: identity)
    }

    /// The caller leaves the space; the last owner cannot.
    public func leave(_ name: String, identity: AccountService.Identity) async throws {
        guard identity.userID != nil, let username = identity.username else {
            throw AccountError(.badRequest, "the admin token is not a member of any space: name a user with X-Simperium-User")
        }
        let grant = try await grant(identity, space: name)
        try await remove(username, from: grant.space, shownAs: "you", by: identity)
    }

    /// Deletes the space and everything in it; every channel on it ends.
    public func delete(_ name: String, by identity: AccountService.Identity) async throws {
        let grant = try await managing(name, identity, "deleting the space")
        let revocation = grant.space.revocation(of: nil, .deleted, epoch: nil)
        let members = try await revoking(revocation) { try await store.deleteSpace(appID: grant.space.appID, spaceID: grant.space.id) }
        enforce(revocation)
        for member in members {
            await memberEvent(grant.space, email: nil, userID: member, role: nil, previous: nil, by: identity, spaceDeleted: true)
        }
    }

    /// Enforces a revocation on this node, committed here or on another node sharing the store
    /// (the PostgreSQL change relay hears of those): the member's channels on the space end,
    /// and what they held in its presence buckets goes.
    public func enforce(_ revocation: SpaceRevocation) {
        endChannels(revocation)
        guard revocation.cause != .roleChanged else { return }
        connections.spaceLeft(appID: revocation.appID, spaceID: revocation.spaceID, userID: revocation.userID)
    }

    /// Checks every channel open on this node against the store, and enforces what changed:
    /// for a node that may have missed revocations committed elsewhere (its PostgreSQL relay
    /// was disconnected). One query per member and space with channels open.
    public func recheckOpenChannels() async throws {
        for opened in channels.opened {
            let space = try await store.space(appID: opened.appID, name: opened.space)
            guard let space, space.id == opened.spaceID else {
                enforce(opened.revocation(.deleted, epoch: nil))
                continue
            }
            _ = try await recheck(opened)
        }
    }

    /// Makes sure this node enforced every change to the space's members committed so far,
    /// before it serves the space: delivers a change written here, or answers a channel.
    ///
    /// Another node's removal reaches this one through the relay some milliseconds after it
    /// commits, and a change written here meanwhile must not reach the member it removed. So
    /// when the space's membership epoch has moved past the epoch a channel's right was last
    /// found at, that right is read again, and what changed is enforced, first. One query per
    /// call, and one per channel only after a change to the members; none on a store that no
    /// other server shares. A check that fails ends the channels it could not check: they
    /// open again on a fresh check.
    public func catchUp(appID: String, spaceID: String) async {
        guard store.spacesAreShared else { return }
        let open = channels.unverified(in: spaceID, before: .max)
        guard !open.isEmpty else { return }
        do {
            guard let epoch = try await store.spaceMembershipEpoch(appID: appID, spaceID: spaceID) else {
                for opened in open { enforce(opened.revocation(.deleted, epoch: nil)) }
                return
            }
            for opened in channels.unverified(in: spaceID, before: epoch) where try await recheck(opened) {
                channels.verified(opened, at: epoch)
            }
        } catch {
            for opened in open {
                channels.revoke(
                    appID: opened.appID, space: opened.space, userID: opened.userID,
                    reason: "your membership of space \(opened.space) could not be checked: open the channel again", before: .max)
            }
        }
    }

    /// Reads the right `opened` was given again and enforces what changed; `true` if it holds.
    private func recheck(_ opened: SpaceChannels.Opened) async throws -> Bool {
        guard let userID = opened.userID else { return true }
        let membership = try await store.spaceMembership(appID: opened.appID, spaceID: opened.spaceID, userID: userID)
        guard let membership else {
            enforce(opened.revocation(.removed, epoch: nil))
            return false
        }
        guard membership.epoch != opened.epoch else { return true }
        // Another epoch with the same role: removed and given the space again meanwhile.
        enforce(opened.revocation(membership.role == opened.role ? .removed : .roleChanged, epoch: membership.epoch))
        return false
    }

    private func remove(_ email: String, from space: SpaceRecord, shownAs shown: String, by identity: AccountService.Identity) async throws {
        // A member's channels end before the removal commits, so no change committed after it reaches them.
        var member: String?
        if let user = try await store.user(appID: space.appID, username: email),
            try await store.spaceRole(appID: space.appID, spaceID: space.id, userID: user.id) != nil
        {
            member = user.id
        }
        let change = try await revoking(space.revocation(of: member, .removed, epoch: nil), if: member != nil) {
            try await store.removeSpaceMember(appID: space.appID, spaceID: space.id, email: email)
        }
        if case .changed(let userID, let previous, _) = change {
            await memberEvent(space, email: email, userID: userID, role: nil, previous: previous, by: identity)
        }
        switch change {
        case .changed(let userID?, _, let epoch):
            enforce(space.revocation(of: userID, .removed, epoch: epoch))
        case .changed(nil, _, _), .unchanged:
            break
        case .notMember:
            throw AccountError(.notFound, "\(email) is not a member of space \(space.name)")
        case .wouldLeaveNoOwner:
            let who = shown == "you" ? "you are" : "\(shown) is"
            throw AccountError(.conflict, "\(who) the last owner of space \(space.name): make another owner first, or delete the space")
        }
    }

    /// Records a `space.member` event: `email` (`userID` when they have an account) went from
    /// `previous` to `role` (`nil`: out of the space) by `identity`'s doing.
    private func memberEvent(
        _ space: SpaceRecord, email: String?, userID: String?, role: SpaceRole?, previous: SpaceRole?, by identity: AccountService.Identity,
        spaceDeleted: Bool = false
    ) async {
        await webhooks?.record(appID: space.appID, .spaceMember) {
            let action =
                if role == nil { "removed" } else if previous != nil { "changed" } else if userID == nil { "invited" } else { "added" }
            var data: JSONObject = [
                "app": .string(space.appID), "space": .string(space.name), "action": .string(action),
                "email": email.map(JSONValue.string) ?? .null, "user": userID.map(JSONValue.string) ?? .null,
                "role": role.map { .string($0.rawValue) } ?? .null, "previousRole": previous.map { .string($0.rawValue) } ?? .null,
                "by": ["user": identity.isAdmin ? .null : identity.userID.map(JSONValue.string) ?? .null],
                "at": .integer(now() / 1_000_000),
            ]
            if spaceDeleted { data["spaceDeleted"] = true }
            return data
        }
    }

    /// The grant of a caller who must be an owner (or the admin token) for `doing`.
    private func managing(_ name: String, _ identity: AccountService.Identity, _ doing: String) async throws -> Grant {
        let grant = try await grant(identity, space: name)
        guard grant.role.canManage else {
            throw AccountError(.forbidden, "\(doing) needs the owner right in space \(name); you are a \(grant.role.rawValue)")
        }
        return grant
    }

    /// Runs `change` with the channels `revocation` takes away ended first and kept from
    /// opening until it has committed (see ``SpaceChannels``); just runs it unless `condition`.
    private func revoking<T>(_ revocation: SpaceRevocation, if condition: Bool = true, _ change: () async throws -> T) async throws -> T {
        guard condition else { return try await change() }
        return try await channels.revoking(
            appID: revocation.appID, space: revocation.space, userID: revocation.userID, reason: revocation.message, while: change)
    }

    private func endChannels(_ revocation: SpaceRevocation) {
        channels.revoke(
            appID: revocation.appID, space: revocation.space, userID: revocation.userID, reason: revocation.message, before: revocation.epoch)
    }
}

extension SpaceRecord {
    fileprivate func revocation(of userID: String?, _ cause: SpaceRevocation.Cause, epoch: Int64?) -> SpaceRevocation {
        SpaceRevocation(appID: appID, space: name, spaceID: id, userID: userID, cause: cause, epoch: epoch)
    }
}

extension SpaceChannels.Opened {
    /// What takes this channel's right away: its member's (everyone's, for a deletion).
    fileprivate func revocation(_ cause: SpaceRevocation.Cause, epoch: Int64?) -> SpaceRevocation {
        SpaceRevocation(appID: appID, space: space, spaceID: spaceID, userID: cause == .deleted ? nil : userID, cause: cause, epoch: epoch)
    }
}
