import Synchronization

/// The open channels on spaces' buckets, by space and user: what a member loses the moment
/// they are removed from a space, or the space is deleted.
///
/// A channel's right to receive is decided once, at `init`, and never looked up again per
/// change; this registry is how that decision is undone. It follows the pattern of tokens in
/// ``ConnectionRegistry``: a channel claims its place before its member's role is read, so a
/// removal committed after that read always finds the claim. A removal that finds the channel
/// open ends it; one that finds it still being checked dooms it, and ``confirm(_:grant:revoke:)``
/// then refuses it if the role it read is older than the removal.
///
/// A revocation heard from another node may come after its member was given the space again
/// and opened a new channel; each channel's membership epoch (``SpaceMembership``) tells the
/// channels the revocation took away from those opened since, which stay.
///
/// ``SpaceService`` commits a removal inside ``revoking(appID:space:userID:reason:while:)``:
/// the member's channels end before it commits (so no change committed after it reaches them,
/// even one already on its way), and until it has committed every channel they open on the
/// space is refused, so none opens on a role read just before the commit.
public final class SpaceChannels: Sendable {
    /// One claimed channel.
    public struct Claim: Sendable, Hashable {
        fileprivate let id: Int
    }

    /// An open channel's member and the right it was opened with.
    public struct Opened: Sendable, Hashable {
        public var appID: String
        public var space: String
        public var spaceID: String
        /// `nil` for the admin token.
        public var userID: String?
        public var role: SpaceRole
        /// The membership's epoch when the channel opened.
        public var epoch: Int64
    }

    /// Why a channel being checked must not open, unless the role it read is newer.
    private struct Doom {
        var reason: String
        /// `nil`: whatever role it read.
        var before: Int64?

        func refuses(_ epoch: Int64) -> Bool { before.map { epoch < $0 } ?? true }

        /// Both revocations hold: the later epoch, or none.
        func joined(with other: Doom) -> Doom {
            Doom(reason: other.reason, before: before.flatMap { mine in other.before.map { max(mine, $0) } })
        }
    }

    private struct Entry {
        var appID: String
        var space: String
        /// `nil` for the admin token.
        var userID: String?
        /// Set once open: what the channel was opened with.
        var opened: Opened?
        /// How to end the channel once it is open.
        var revoke: (@Sendable (String) -> Void)?
        /// Why the channel must not open: it was revoked while its check ran.
        var doomed: Doom?
        /// The space's membership epoch at which the right was last found to hold.
        var verifiedEpoch: Int64 = 0
    }

    /// A removal under way: channels of `userID` (everyone's when `nil`) may not open.
    private struct Revoking {
        var appID: String
        var space: String
        var userID: String?
        var reason: String

        func covers(_ entry: Entry) -> Bool {
            entry.appID == appID && entry.space == space && (userID == nil || entry.userID == userID)
        }
    }

    private struct State {
        var lastID = 0
        var entries: [Int: Entry] = [:]
        var revoking: [Int: Revoking] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// A channel of `userID` is about to be checked for space `space`.
    func claim(appID: String, space: String, userID: String?) -> Claim {
        state.withLock { state in
            state.lastID += 1
            var entry = Entry(appID: appID, space: space, userID: userID)
            entry.doomed = state.revoking.values.first { $0.covers(entry) }.map { Doom(reason: $0.reason, before: nil) }
            state.entries[state.lastID] = entry
            return Claim(id: state.lastID)
        }
    }

    /// Runs `change` (a removal, a changed role, a deletion) with the channels it takes away
    /// ended first and kept from opening until it returns.
    func revoking<T>(
        appID: String, space: String, userID: String?, reason: String, while change: () async throws -> T
    ) async rethrows -> T {
        let id = state.withLock { state in
            state.lastID += 1
            state.revoking[state.lastID] = Revoking(appID: appID, space: space, userID: userID, reason: reason)
            return state.lastID
        }
        defer { _ = state.withLock { $0.revoking.removeValue(forKey: id) } }
        revoke(appID: appID, space: space, userID: userID, reason: reason, before: nil)
        return try await change()
    }

    /// The check passed with `grant` and the channel is open: `revoke` ends it. Returns
    /// `false`, releasing the claim, when it was revoked while being checked: the channel must
    /// not open.
    func confirm(_ claim: Claim, grant: SpaceService.Grant, revoke: @escaping @Sendable (String) -> Void) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[claim.id], !(entry.doomed?.refuses(grant.epoch) ?? false) else {
                state.entries[claim.id] = nil
                return false
            }
            state.entries[claim.id]?.doomed = nil
            state.entries[claim.id]?.verifiedEpoch = grant.epoch
            state.entries[claim.id]?.opened = Opened(
                appID: entry.appID, space: entry.space, spaceID: grant.space.id, userID: entry.userID, role: grant.role, epoch: grant.epoch)
            state.entries[claim.id]?.revoke = revoke
            return true
        }
    }

    /// The channels open on `spaceID` whose right was last checked at an epoch before `epoch`.
    func unverified(in spaceID: String, before epoch: Int64) -> Set<Opened> {
        state.withLock { state in
            Set(state.entries.values.compactMap { entry in
                entry.opened.flatMap { $0.spaceID == spaceID && entry.verifiedEpoch < epoch ? $0 : nil }
            })
        }
    }

    /// The right `opened` holds was found unchanged at the space's epoch `epoch`.
    func verified(_ opened: Opened, at epoch: Int64) {
        state.withLock { state in
            for (id, entry) in state.entries where entry.opened == opened {
                state.entries[id]?.verifiedEpoch = max(entry.verifiedEpoch, epoch)
            }
        }
    }

    /// Who holds channels open now, and with what right, once each.
    public var opened: Set<Opened> {
        state.withLock { state in Set(state.entries.values.compactMap(\.opened)) }
    }

    /// The channel closed, or its check failed. Releasing twice is harmless.
    func release(_ claim: Claim) {
        _ = state.withLock { $0.entries.removeValue(forKey: claim.id) }
    }

    /// Ends the channels of `userID` on the space (every channel on it when `nil`) opened with a
    /// membership older than epoch `before` (all of them when `nil`), telling each client
    /// `reason`; dooms those still being checked. Returns how many it ended.
    @discardableResult
    func revoke(appID: String, space: String, userID: String?, reason: String, before epoch: Int64?) -> Int {
        let revoking = Revoking(appID: appID, space: space, userID: userID, reason: reason)
        let doom = Doom(reason: reason, before: epoch)
        let ended = state.withLock { state in
            var ended: [@Sendable (String) -> Void] = []
            for (id, entry) in state.entries where revoking.covers(entry) {
                if let opened = entry.opened, let revoke = entry.revoke {
                    guard doom.refuses(opened.epoch) else { continue }
                    ended.append(revoke)
                    state.entries[id] = nil
                } else {
                    state.entries[id]?.doomed = entry.doomed.map { $0.joined(with: doom) } ?? doom
                }
            }
            return ended
        }
        for revoke in ended { revoke(reason) }
        return ended.count
    }

    /// How many channels are open or being checked (tests).
    public var count: Int { state.withLock { $0.entries.count } }
}
