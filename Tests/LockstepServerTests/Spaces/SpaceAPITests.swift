import Foundation
import LockstepCore
import LockstepServer
import Testing

/// The spaces API over HTTP against a real server: made, shared by email, listed, left and
/// deleted; and every bad request answered with a clear 4xx that changes nothing.
@Suite("Spaces: HTTP API", .timeLimit(.minutes(2)))
struct SpaceAPITests {
    @Test(arguments: StoreKind.allCases)
    func anOwnerSharesASpaceByEmail(_ kind: StoreKind) async throws {
        try await TestServer.with(kind) { server in
            let ann = try await server.createUser("ann@example.com")
            let bob = try await server.createUser("bob@example.com")
            let made = try await ann.spaces("POST", body: ["name": "job-1"])
            #expect(made.status == 201, "\(made)")
            #expect(made.json == ["name": "job-1", "role": "owner"])
            try await ann.invite("Bob@Example.com", as: "writer", to: "job-1")
            // Cat has no account yet: the invitation waits for it.
            try await ann.invite("cat@example.com", as: "reader", to: "job-1")
            #expect(try await bob.spaces("GET").json == [["name": "job-1", "role": "writer"]])

            #expect(try await bob.request("POST", "__job-1.items/i/sofa", body: ["room": "lounge"]).status == 200)
            #expect(try await ann.request("GET", "__job-1.items/i/sofa").json == ["room": "lounge"])
            // A user's own bucket of the same name is another bucket.
            #expect(try await ann.request("GET", "items/i/sofa").status == 404)

            let cat = try await server.createUser("cat@example.com")
            #expect(try await cat.request("GET", "__job-1.items/i/sofa").json == ["room": "lounge"])
            let refused = try await cat.request("POST", "__job-1.items/i/sofa", body: ["room": "attic"])
            #expect(refused.status == 403)
            #expect(refused.errorMessage?.contains("reader") == true && refused.errorMessage?.contains("write right") == true, "\(refused)")
            #expect(try await server.members(of: "job-1", as: cat)
                == ["ann@example.com": "owner", "bob@example.com": "writer", "cat@example.com": "reader"])

            // Owners change roles and remove; members leave.
            try await ann.invite("cat@example.com", as: "writer", to: "job-1")
            #expect(try await cat.request("POST", "__job-1.items/i/lamp", body: ["on": true]).status == 200)
            #expect(try await ann.spaces("DELETE", "/job-1/members/bob@example.com").status == 200)
            #expect(try await bob.spaces("GET").json == [])
            #expect(try await cat.spaces("POST", "/job-1/leave").status == 200)
            #expect(try await server.members(of: "job-1", as: ann) == ["ann@example.com": "owner"])

            #expect(try await ann.spaces("DELETE", "/job-1").status == 200)
            #expect(try await ann.spaces("GET").json == [])
            // A space made again under the name starts empty.
            try await ann.createSpace("job-1")
            #expect(try await ann.request("GET", "__job-1.items/i/sofa").status == 404)
        }
    }

    @Test func badRequestsAreRefusedAndChangeNothing() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser("ann@example.com")
        let bob = try await server.createUser("bob@example.com")
        try await ann.createSpace("job-1")
        try await ann.invite("bob@example.com", as: "writer", to: "job-1")
        let before = try await server.members(of: "job-1", as: ann)

        for (method, path, body, status, says) in [
            ("POST", "/job-1/members", ["email": "not-an-email", "role": "reader"], 400, "not an email address"),
            ("POST", "/job-1/members", ["email": "x@localhost", "role": "reader"], 400, "domain needs a dot"),
            ("POST", "/job-1/members", ["email": "x y@example.com", "role": "reader"], 400, "not an email address"),
            ("POST", "/job-1/members", ["role": "reader"], 400, "needs the \"email\""),
            ("POST", "/job-1/members", ["email": "cat@example.com", "role": "admin"], 400, "a role must be"),
            ("POST", "/job-9/members", ["email": "cat@example.com", "role": "reader"], 404, "there is no space job-9"),
            ("POST", "/job-1/members", ["email": "ann@example.com", "role": "writer"], 409, "last owner"),
            ("DELETE", "/job-1/members/ann@example.com", nil, 409, "last owner"),
            ("DELETE", "/job-1/members/cat@example.com", nil, 404, "not a member"),
            ("POST", "/job-1/leave", nil, 409, "last owner"),
            ("POST", "", ["name": "Job 2"], 400, "not a valid space name"),
            ("POST", "", ["name": "job.2"], 400, "not a valid space name"),
            ("POST", "", [:], 400, "needs a \"name\""),
            ("POST", "", ["name": "job-1"], 409, "taken"),
            ("DELETE", "/job-9", nil, 404, "there is no space job-9"),
        ] as [(String, String, JSONValue?, Int, String)] {
            let response = try await ann.spaces(method, path, body: body)
            #expect(response.status == status, "\(method) \(path) \(body?.description ?? ""): \(response)")
            #expect(response.errorMessage?.contains(says) == true, "\(method) \(path): \(response)")
        }
        // A writer may not manage, and says so.
        let writer = try await bob.spaces("DELETE", "/job-1")
        #expect(writer.status == 403 && writer.errorMessage?.contains("owner right") == true, "\(writer)")
        #expect(try await server.members(of: "job-1", as: ann) == before)
        #expect(try await ann.spaces("GET").json == [["name": "job-1", "role": "owner"]])
        // Names of users' buckets cannot reach into spaces.
        for bucket in ["__job-1", "__job-1.", "__x", "__Job-1.items"] {
            let response = try await ann.request("POST", "\(bucket)/i/x", body: ["a": 1])
            #expect(response.status == 400, "\(bucket): \(response)")
        }
    }

    @Test func theAdminTokenManagesEverySpaceOfItsApp() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser("ann@example.com")
        let made = try await server.admin("POST", "__spaces__", body: ["name": "catalog-team"])
        #expect(made.status == 201, "\(made)")
        #expect(made.json == ["name": "catalog-team", "role": nil])
        #expect(try await server.admin("POST", "__spaces__/catalog-team/members", body: ["email": "ann@example.com", "role": "owner"]).status == 200)
        try await ann.createSpace("ann-notes")
        #expect(try await server.admin("GET", "__spaces__").json?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["ann-notes", "catalog-team"])
        #expect(try await server.admin("POST", "__job-1.items/i/x", body: ["a": 1]).status == 404, "no such space, even for the admin")
        #expect(try await server.admin("POST", "__ann-notes.items/i/x", body: ["a": 1]).status == 200)
        #expect(try await ann.request("GET", "__ann-notes.items/i/x").json == ["a": 1])
        #expect(try await server.admin("DELETE", "__spaces__/ann-notes/members/ann@example.com").status == 409, "the last owner stays")
        #expect(try await server.admin("DELETE", "__spaces__/ann-notes").status == 200)
        #expect(try await ann.spaces("GET").json == [["name": "catalog-team", "role": "owner"]])
    }
}
