/// Where a bucket name leads for one caller, and with what rights: decided once per request,
/// and once per channel (a channel keeps its access for its whole life; a member who loses a
/// space loses the channel with it, see ``SpaceChannels``).
public struct BucketAccess: Sendable, Equatable {
    /// The storage the caller reaches.
    public var scope: BucketScope
    /// For a space's bucket, the space and the caller's role in it.
    public var space: SpaceService.Grant?
}

extension LockstepServices {
    /// The scope a request reaches, checked for `writing`: the user's own bucket, the app's
    /// shared one, or a space's.
    ///
    /// This is the one place that turns a bucket name into storage, so every route that calls it
    /// keeps users out of each other's data.
    public func scope(for identity: AccountService.Identity, bucket: String, writing: Bool) async throws -> BucketScope {
        let access = try await access(for: identity, bucket: bucket)
        try await authorize(access, for: identity, writing: writing)
        return access.scope
    }

    /// Where `bucket` leads for `identity`, and its role there for a space's bucket (see
    /// ``SpaceBucketName``). A space's bucket that the caller is not a member of gets the very
    /// answer of one whose space does not exist.
    public func access(for identity: AccountService.Identity, bucket: String) async throws -> BucketAccess {
        if let name = SpaceBucketName(bucket) {
            let grant = try await spaces.grant(identity, space: name.space, orElse: ChangeRejection(.notFound, "there is no bucket \(bucket)"))
            return BucketAccess(scope: grant.space.scope(bucket: name.bucket), space: grant)
        }
        guard SpaceBucketName.isValidBucket(bucket) else {
            throw ChangeRejection(
                .badRequest,
                "\"\(bucket)\" is not a valid bucket name: use 1 to 256 of a-z A-Z 0-9 . _ % @ -, not beginning with __ "
                    + "(reserved for the buckets of spaces, __<space>.<bucket>)")
        }
        if try await options(appID: identity.appID, bucket: bucket).isShared {
            return BucketAccess(scope: BucketScope(appID: identity.appID, owner: .shared, bucket: bucket))
        }
        guard let userID = identity.userID else {
            throw AccountError(.badRequest, "the admin token must name a user with X-Simperium-User for bucket \(bucket)")
        }
        return BucketAccess(scope: BucketScope(appID: identity.appID, owner: .user(userID), bucket: bucket))
    }

    /// Checks again, after a read through `access`, that the caller still has it: a read that
    /// began before a member lost the space, and so may have read what was written after, is
    /// answered as a stranger is. (A right that held before and after the read held during it,
    /// whichever node removed the member.) Nothing to check for other buckets.
    public func confirm(_ access: BucketAccess, for identity: AccountService.Identity) async throws {
        guard let held = access.space, !identity.isAdmin else { return }
        let name = SpaceBucketName(space: held.space.name, bucket: access.scope.bucket).description
        let notFound = ChangeRejection(.notFound, "there is no bucket \(name)")
        let now = try await spaces.grant(identity, space: held.space.name, orElse: notFound)
        guard now.space.id == held.space.id else { throw notFound }
    }

    /// Checks that `identity` may write through `access` when `writing`: a space's readers may
    /// not, nor may users write read-only buckets (which apply to a space's bucket of the same
    /// name too) or the store's purchases.
    public func authorize(_ access: BucketAccess, for identity: AccountService.Identity, writing: Bool) async throws {
        guard writing else { return }
        let bucket = access.scope.bucket
        if let space = access.space, !space.role.canWrite {
            throw AccountError(
                .forbidden, "you are a \(space.role.rawValue) of space \(space.space.name): writing its buckets needs the write right (writer or owner)")
        }
        if try await options(appID: identity.appID, bucket: bucket).isReadOnly && !identity.isAdmin {
            throw AccountError(.forbidden, "bucket \(bucket) is read-only; only the admin token writes it")
        }
        if access.space == nil && releases != nil && bucket == ReleaseService.purchasesBucket && !identity.isAdmin {
            throw AccountError(.forbidden, "the server writes bucket \(bucket) itself: buy with POST /1/\(identity.appID)/purchase")
        }
    }
}
