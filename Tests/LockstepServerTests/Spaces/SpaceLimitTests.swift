import Foundation
import LockstepCore
import LockstepServer
import Testing

/// The limits on spaces: how many a user may make or join, and how many members (with waiting
/// invitations) one space may have; refused with a message saying which, changing nothing.
@Suite("Spaces: limits", .timeLimit(.minutes(1)))
struct SpaceLimitTests {
    @Test func spacesPerUserAndMembersPerSpaceAreCapped() async throws {
        var limits = TestServer.testLimits
        limits.maximumSpacesPerUser = 2
        limits.maximumMembersPerSpace = 3
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let ann = try await server.createUser("ann@example.com")
        try await ann.createSpace("job-1")
        try await ann.createSpace("job-2")
        let third = try await ann.spaces("POST", body: ["name": "job-3"])
        #expect(third.status == 403 && third.errorMessage?.contains("member of 2 spaces") == true, "\(third)")
        #expect(try await ann.spaces("GET").json?.arrayValue?.count == 2)
        // Leaving one makes room.
        #expect(try await ann.spaces("DELETE", "/job-2").status == 200)
        try await ann.createSpace("job-3")

        // Ann (owner) + bob + an invitation for cat: full.
        try await ann.invite("bob@example.com", as: "writer", to: "job-1")
        try await ann.invite("cat@example.com", as: "reader", to: "job-1")
        let dan = try await ann.spaces("POST", "/job-1/members", body: ["email": "dan@example.com", "role": "reader"])
        #expect(dan.status == 403 && dan.errorMessage?.contains("has 3 members and invitations") == true, "\(dan)")
        // Changing a member's role still works at the cap.
        try await ann.invite("Cat@Example.com", as: "writer", to: "job-1")
        #expect(try await server.members(of: "job-1", as: ann).count == 3)
    }
}
