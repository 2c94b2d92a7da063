import Foundation
import LockstepCore
import LockstepServer
import Testing

/// A space's peer key changes with its writers: a member taken off the job (or made a reader)
/// holds a key the team's phones no longer use once they fetch theirs again.
///
/// Its 19 requests, one after another, take 0.2 s alone and 48 s beside the core property tests
/// and four CPU burners (the property tests hold the test process's pool): the limit catches a
/// hang, not a slow machine.
@Suite("Spaces: peer keys follow the writers", .timeLimit(.minutes(3)))
struct SpacePeerKeyTests {
    @Test func theKeyChangesWhenAWriterComesOrGoesAndNotForAReader() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser("ann@example.com")
        let bob = try await server.createUser("bob@example.com")
        let cat = try await server.createUser("cat@example.com")
        _ = try await server.createUser("dan@example.com")
        try await ann.createSpace("job-1")
        try await ann.invite("bob@example.com", as: "writer", to: "job-1")

        func key(_ user: UserSession) async throws -> String? {
            try await user.request("GET", "__job-1.items/peerkey").json?["key"]?.stringValue
        }
        let first = try #require(try await key(ann))
        #expect(try await key(bob) == first)

        // A reader has no key, and adding one leaves the writers' key as it was.
        try await ann.invite("dan@example.com", as: "reader", to: "job-1")
        #expect(try await key(ann) == first)

        try await ann.invite("cat@example.com", as: "writer", to: "job-1")
        let withCat = try #require(try await key(cat))
        #expect(withCat != first)
        #expect(try await key(bob) == withCat)

        // Cat is taken off the job: the team's key moves on, and cat gets none.
        #expect(try await ann.spaces("DELETE", "/job-1/members/cat@example.com").status == 200)
        let withoutCat = try #require(try await key(bob))
        #expect(withoutCat != withCat)
        #expect(try await cat.request("GET", "__job-1.items/peerkey").status == 404)
        // Bob made a reader: his old key is no longer the team's.
        try await ann.invite("bob@example.com", as: "reader", to: "job-1")
        #expect(try await key(ann) != withoutCat)
        // A user's own bucket keeps one key, whatever happens to spaces.
        let own = try await ownKey(ann, bucket: "notes")
        try await ann.invite("bob@example.com", as: "writer", to: "job-1")
        #expect(try await ownKey(ann, bucket: "notes") == own)
    }

    private func ownKey(_ user: UserSession, bucket: String) async throws -> String? {
        try await user.request("GET", "\(bucket)/peerkey").json?["key"]?.stringValue
    }
}
