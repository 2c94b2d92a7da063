import Foundation
import LockstepCore
import LockstepServer
import Testing

/// What every store keeps of spaces, run against a real SQLite file and a real PostgreSQL
/// database: spaces, members, invitations that wait for their user, the last owner, deletion.
@Suite("Spaces: store contract (SQLite and PostgreSQL)")
struct SpaceStoreTests {
    @Test(arguments: StoreKind.allCases)
    func spacesAndMembers(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            let other = try await insertTestApp(store)
            try await store.insertUser(UserRecord(appID: app, id: "u1", username: "Ann@Example.com", passwordHash: nil, createdAt: 1))
            try await store.insertUser(UserRecord(appID: app, id: "u2", username: "bob@example.com", passwordHash: nil, createdAt: 1))
            let job = SpaceRecord(appID: app, id: "s1", name: "job-1", createdAt: 5)
            try await store.insertSpace(job, ownerID: "u1")
            await #expect(throws: StoreError.duplicate("space job-1")) {
                try await store.insertSpace(SpaceRecord(appID: app, id: "s2", name: "job-1", createdAt: 6), ownerID: "u2")
            }
            // Names are per app.
            try await store.insertSpace(SpaceRecord(appID: other, id: "s3", name: "job-1", createdAt: 6), ownerID: nil)
            #expect(try await store.space(appID: app, name: "job-1") == job)
            #expect(try await store.space(appID: app, name: "job-2") == nil)
            #expect(try await store.spaceRole(appID: app, spaceID: "s1", userID: "u1") == .owner)
            #expect(try await store.spaceRole(appID: app, spaceID: "s1", userID: "u2") == nil)

            // An existing user (found by canonical name) becomes a member; a role changes in place.
            #expect(try await store.setSpaceRole(appID: app, spaceID: "s1", email: "BOB@example.com", role: .reader)
                == .changed(userID: "u2", from: nil, epoch: 1))
            #expect(try await store.setSpaceRole(appID: app, spaceID: "s1", email: "bob@example.com", role: .reader) == .unchanged)
            #expect(try await store.setSpaceRole(appID: app, spaceID: "s1", email: "bob@example.com", role: .writer)
                == .changed(userID: "u2", from: .reader, epoch: 2))
            #expect(try await store.spaceMembership(appID: app, spaceID: "s1", userID: "u2") == SpaceMembership(role: .writer, epoch: 2))
            #expect(try await store.spaces(appID: app, memberID: "u2") == [SpaceListing(space: job, role: .writer)])
            #expect(try await store.spaces(appID: app, memberID: nil).map(\.space.name) == ["job-1"])
            #expect(try await store.spaces(appID: other, memberID: "u2").isEmpty)

            // The last owner stays; with a second owner, the first may go.
            #expect(try await store.setSpaceRole(appID: app, spaceID: "s1", email: "ann@example.com", role: .writer) == .wouldLeaveNoOwner)
            #expect(try await store.removeSpaceMember(appID: app, spaceID: "s1", email: "ann@example.com") == .wouldLeaveNoOwner)
            #expect(try await store.spaceRole(appID: app, spaceID: "s1", userID: "u1") == .owner)
            #expect(try await store.setSpaceRole(appID: app, spaceID: "s1", email: "bob@example.com", role: .owner)
                == .changed(userID: "u2", from: .writer, epoch: 3), "a refused change moves no epoch")
            #expect(try await store.removeSpaceMember(appID: app, spaceID: "s1", email: "ann@example.com")
                == .changed(userID: "u1", from: .owner, epoch: 4))
            #expect(try await store.removeSpaceMember(appID: app, spaceID: "s1", email: "ann@example.com") == .notMember)
            #expect(try await store.spaceRole(appID: app, spaceID: "s1", userID: "u1") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anInvitationWaitsForItsUser(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            let other = try await insertTestApp(store)
            try await store.insertUser(UserRecord(appID: app, id: "u1", username: "ann@example.com", passwordHash: nil, createdAt: 1))
            try await store.insertSpace(SpaceRecord(appID: app, id: "s1", name: "job-1", createdAt: 5), ownerID: "u1")
            #expect(try await store.setSpaceRole(appID: app, spaceID: "s1", email: "Cat@Example.com", role: .writer)
                == .changed(userID: nil, from: nil, epoch: 0))
            #expect(try await store.spaceMembers(appID: app, spaceID: "s1") == [
                SpaceMember(email: "Cat@Example.com", role: .writer, userID: nil),
                SpaceMember(email: "ann@example.com", role: .owner, userID: "u1"),
            ])
            // The same name in another app is another person.
            try await store.insertUser(UserRecord(appID: other, id: "u3", username: "cat@example.com", passwordHash: nil, createdAt: 6))
            #expect(try await store.spaceRole(appID: app, spaceID: "s1", userID: "u3") == nil)

            try await store.insertUser(UserRecord(appID: app, id: "u2", username: "cat@example.com", passwordHash: nil, createdAt: 7))
            #expect(try await store.spaceRole(appID: app, spaceID: "s1", userID: "u2") == .writer)
            #expect(try await store.spaceMembers(appID: app, spaceID: "s1").map(\.userID) == ["u1", "u2"])
            // Bob's removal moved the epoch on; Cat, accepted later, holds it.
            try await store.insertUser(UserRecord(appID: app, id: "u5", username: "bob@example.com", passwordHash: nil, createdAt: 7))
            _ = try await store.setSpaceRole(appID: app, spaceID: "s1", email: "bob@example.com", role: .reader)
            #expect(try await store.removeSpaceMember(appID: app, spaceID: "s1", email: "bob@example.com")
                == .changed(userID: "u5", from: .reader, epoch: 2))
            _ = try await store.setSpaceRole(appID: app, spaceID: "s1", email: "fay@example.com", role: .reader)
            try await store.insertUser(UserRecord(appID: app, id: "u7", username: "fay@example.com", passwordHash: nil, createdAt: 7))
            #expect(try await store.spaceMembership(appID: app, spaceID: "s1", userID: "u7") == SpaceMembership(role: .reader, epoch: 2))

            // An invitation withdrawn never takes effect.
            #expect(try await store.setSpaceRole(appID: app, spaceID: "s1", email: "dan@example.com", role: .reader)
                == .changed(userID: nil, from: nil, epoch: 0))
            #expect(try await store.removeSpaceMember(appID: app, spaceID: "s1", email: "dan@example.com")
                == .changed(userID: nil, from: .reader, epoch: 0))
            try await store.insertUser(UserRecord(appID: app, id: "u4", username: "dan@example.com", passwordHash: nil, createdAt: 8))
            #expect(try await store.spaceRole(appID: app, spaceID: "s1", userID: "u4") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deletingASpaceDeletesWhatItHeld(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            let app = try await insertTestApp(store)
            try await store.insertUser(UserRecord(appID: app, id: "u1", username: "ann@example.com", passwordHash: nil, createdAt: 1))
            let space = SpaceRecord(appID: app, id: "s1", name: "job-1", createdAt: 5)
            let kept = SpaceRecord(appID: app, id: "s2", name: "job-2", createdAt: 5)
            try await store.insertSpace(space, ownerID: "u1")
            try await store.insertSpace(kept, ownerID: "u1")
            _ = try await store.setSpaceRole(appID: app, spaceID: "s1", email: "eve@example.com", role: .reader)
            let items = StoreWriter(store: store, scope: space.scope(bucket: "items"))
            let keptItems = StoreWriter(store: store, scope: kept.scope(bucket: "items"))
            let own = StoreWriter(store: store, scope: BucketScope(appID: app, owner: .user("u1"), bucket: "items"))
            try await items.commit("sofa", ["room": "lounge"])
            try await keptItems.commit("sofa", ["room": "hall"])
            try await own.commit("sofa", ["room": "mine"])
            #expect(try await store.object(space.scope(bucket: "items"), key: "sofa")?.data == ["room": "lounge"])

            #expect(try await store.deleteSpace(appID: app, spaceID: "s1") == ["u1"])
            #expect(try await store.space(appID: app, name: "job-1") == nil)
            #expect(try await store.spaceRole(appID: app, spaceID: "s1", userID: "u1") == nil)
            #expect(try await store.spaceMembers(appID: app, spaceID: "s1").isEmpty)
            #expect(try await store.object(space.scope(bucket: "items"), key: "sofa") == nil)
            #expect(try await store.appFeed(appID: app, bucket: "items", after: 0, limit: 100).map(\.ownerKey).sorted()
                == ["space:s2", "u1"])
            #expect(try await store.object(kept.scope(bucket: "items"), key: "sofa")?.data == ["room": "hall"])
            #expect(try await store.object(own.scope, key: "sofa")?.data == ["room": "mine"])
            // The withdrawn space's invitation never takes effect.
            try await store.insertUser(UserRecord(appID: app, id: "u2", username: "eve@example.com", passwordHash: nil, createdAt: 9))
            #expect(try await store.spaces(appID: app, memberID: "u2").isEmpty)
        }
    }
}
