import Foundation
import LockstepCore
@testable import LockstepServer
import Synchronization
import Testing

/// The registry that undoes a channel's right to a space: claimed before the role is read,
/// ended by a removal, refused while one commits.
@Suite("Spaces: the channels a removal ends")
struct SpaceChannelsTests {
    let grant = SpaceService.Grant(space: SpaceRecord(appID: "a", id: "s1", name: "job-1", createdAt: 1), role: .writer, epoch: 3)

    @Test func aRemovalEndsOpenChannelsAndDoomsThoseBeingChecked() {
        let channels = SpaceChannels()
        let ended = Mutex<[String]>([])
        let open = channels.claim(appID: "a", space: "job-1", userID: "bob")
        #expect(channels.confirm(open, grant: grant) { reason in ended.withLock { $0.append("bob: " + reason) } })
        let checking = channels.claim(appID: "a", space: "job-1", userID: "bob")
        let otherUser = channels.claim(appID: "a", space: "job-1", userID: "cat")
        let otherSpace = channels.claim(appID: "a", space: "job-2", userID: "bob")
        let otherApp = channels.claim(appID: "b", space: "job-1", userID: "bob")

        #expect(channels.revoke(appID: "a", space: "job-1", userID: "bob", reason: "removed", before: nil) == 1)
        #expect(ended.withLock { $0 } == ["bob: removed"])
        #expect(!channels.confirm(checking, grant: grant) { _ in }, "a channel whose check ran across the removal never opens")
        for claim in [otherUser, otherSpace, otherApp] { #expect(channels.confirm(claim, grant: grant) { _ in }) }
        #expect(channels.revoke(appID: "a", space: "job-1", userID: nil, reason: "deleted", before: nil) == 1, "deletion ends everyone's")
        #expect(channels.count == 2)
    }

    /// A removal heard late from another node, after the member was invited back (epoch 5)
    /// and opened a channel again: it ends what was opened before it, and only that.
    @Test func aLateRevocationEndsOnlyTheChannelsOpenedBeforeIt() {
        let channels = SpaceChannels()
        let ended = Mutex<[String]>([])
        var again = grant
        again.epoch = 5
        let old = channels.claim(appID: "a", space: "job-1", userID: "bob")
        #expect(channels.confirm(old, grant: grant) { _ in ended.withLock { $0.append("old") } })
        let new = channels.claim(appID: "a", space: "job-1", userID: "bob")
        #expect(channels.confirm(new, grant: again) { _ in ended.withLock { $0.append("new") } })
        let checkingOld = channels.claim(appID: "a", space: "job-1", userID: "bob")
        let checkingNew = channels.claim(appID: "a", space: "job-1", userID: "bob")

        #expect(channels.revoke(appID: "a", space: "job-1", userID: "bob", reason: "removed", before: 4) == 1)
        #expect(ended.withLock { $0 } == ["old"])
        #expect(!channels.confirm(checkingOld, grant: grant) { _ in }, "a role read before the removal does not open")
        #expect(channels.confirm(checkingNew, grant: again) { _ in }, "a role read after it does")
        #expect(channels.count == 2)
    }

    @Test func whileARemovalCommitsNoChannelOfTheMemberOpens() async {
        let channels = SpaceChannels()
        let during = await channels.revoking(appID: "a", space: "job-1", userID: "bob", reason: "removed") {
            (bob: channels.claim(appID: "a", space: "job-1", userID: "bob"), cat: channels.claim(appID: "a", space: "job-1", userID: "cat"))
        }
        #expect(!channels.confirm(during.bob, grant: grant) { _ in })
        #expect(channels.confirm(during.cat, grant: grant) { _ in })
        let after = channels.claim(appID: "a", space: "job-1", userID: "bob")
        #expect(channels.confirm(after, grant: grant) { _ in }, "once it has committed, what opens is checked against the new state")
    }

    @Test func aReadIsConfirmedAgainstTheSpaceAsItIsAfterwards() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser("ann@example.com")
        let bob = try await server.createUser("bob@example.com")
        try await ann.createSpace("job-1")
        try await ann.invite("bob@example.com", as: "reader", to: "job-1")
        let services = server.services
        let bobIdentity = try await services.accounts.authenticate(appID: server.appID, token: bob.token)
        let annIdentity = try await services.accounts.authenticate(appID: server.appID, token: ann.token)
        let bobs = try await services.access(for: bobIdentity, bucket: "__job-1.items")
        let anns = try await services.access(for: annIdentity, bucket: "__job-1.items")
        try await services.confirm(bobs, for: bobIdentity)

        #expect(try await ann.spaces("DELETE", "/job-1/members/bob@example.com").status == 200)
        await #expect(throws: ChangeRejection(.notFound, "there is no bucket __job-1.items")) { try await services.confirm(bobs, for: bobIdentity) }
        try await services.confirm(anns, for: annIdentity)
        // A space deleted and made again under its name is another space.
        #expect(try await ann.spaces("DELETE", "/job-1").status == 200)
        try await ann.createSpace("job-1")
        await #expect(throws: ChangeRejection(.notFound, "there is no bucket __job-1.items")) { try await services.confirm(anns, for: annIdentity) }
    }
}
