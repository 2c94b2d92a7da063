import Foundation
import LockstepCore
import LockstepServer
import Testing

/// The rights of a space, one cell at a time: every endpoint that reaches a space's bucket, for
/// every kind of caller, over HTTP and over the streaming socket.
///
/// | endpoint | owner | writer | reader | revoked | stranger | other app | admin |
/// |---|---|---|---|---|---|---|---|
/// | read: object, revision, index, changes, socket `init`/`i:`/`e:`/`cv:` | ✓ | ✓ | ✓ | 404 | 404 | 401 | ✓ |
/// | read: versions, compare | ✓ | ✓ | ✓ | 404 | 404 | 401 | ✓ |
/// | write: POST/DELETE object, POST changes, peer key, socket `c:`, restore an object | ✓ | ✓ | 403 | 404 | 404 | 401 | ✓ |
/// | members | ✓ | ✓ | ✓ | 404 | 404 | 401 | ✓ |
/// | invite, remove, restore a bucket to a moment | ✓ | 403 | 403 | 404 | 404 | 401 | ✓ |
///
/// A 404 is byte for byte what a space that does not exist gets.
@Suite("Spaces: rights, endpoint × role", .timeLimit(.minutes(3)))
struct SpaceRightsTests {
    enum Role: String, CaseIterable, Sendable {
        case owner, writer, reader, revoked, stranger, otherApp, admin

        /// `nil`: allowed; otherwise the status refused with.
        var read: Int? {
            switch self {
            case .owner, .writer, .reader, .admin: nil
            case .revoked, .stranger: 404
            case .otherApp: 401
            }
        }

        var write: Int? { self == .reader ? 403 : read }
        var manage: Int? { self == .writer || self == .reader ? 403 : read }
    }

    /// One server with space `job-1` (object `sofa` in its bucket `items`) and a token per role.
    struct Cast {
        let server: TestServer
        let tokens: [Role: String]

        static func make(_ server: TestServer) async throws -> Cast {
            let owner = try await server.createUser("owner@example.com")
            try await owner.createSpace("job-1")
            var tokens: [Role: String] = [.owner: owner.token, .admin: server.app.adminToken]
            for role in [Role.writer, .reader, .revoked] {
                let user = try await server.createUser("\(role.rawValue)@example.com")
                try await owner.invite(user.username, as: role == .reader ? "reader" : "writer", to: "job-1")
                tokens[role] = user.token
            }
            #expect(try await owner.spaces("DELETE", "/job-1/members/revoked@example.com").status == 200)
            tokens[.stranger] = try await server.createUser("stranger@example.com").token
            let other = try await server.services.accounts.createApp(name: "other")
            let created = try await server.request(
                "POST", "/1/\(other.appID)/create/", headers: ["X-Simperium-API-Key": other.apiKey],
                body: ["username": "owner@example.com", "password": "secret"])
            tokens[.otherApp] = try #require(created.json?["access_token"]?.stringValue)
            #expect(try await owner.request("POST", "__job-1.items/i/sofa", body: ["room": "lounge"]).status == 200)
            return Cast(server: server, tokens: tokens)
        }

        func request(_ role: Role, _ method: String, _ path: String, body: JSONValue? = nil) async throws -> TestResponse {
            try await server.request(method, "/1/\(server.appID)/\(path)", headers: ["X-Simperium-Token": tokens[role]!], body: body)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func overHTTP(_ kind: StoreKind) async throws {
        try await TestServer.with(kind) { server in
            let cast = try await Cast.make(server)
            for role in Role.allCases {
                let name = role.rawValue
                let cells: [(String, String, JSONValue?, Int?)] = [
                    ("GET", "__job-1.items/i/sofa", nil, role.read),
                    ("GET", "__job-1.items/i/sofa/v/1", nil, role.read),
                    ("GET", "__job-1.items/index?data=1", nil, role.read),
                    ("GET", "__job-1.items/changes", nil, role.read),
                    ("GET", "__spaces__/job-1", nil, role.read),
                    ("GET", "__job-1.items/i/sofa/versions", nil, role.read),
                    ("GET", "__job-1.items/i/sofa/compare?from=1", nil, role.read),
                    ("POST", "__job-1.items/i/sofa/restore", ["version": 1], role.write),
                    ("POST", "__job-1.items/restore", ["at": .integer(Int64(Date().timeIntervalSince1970 * 1000) - 1000), "dryRun": true], role.manage),
                    ("POST", "__job-1.items/i/x-\(name)", ["by": .string(name)], role.write),
                    ("DELETE", "__job-1.items/i/x-\(name)", nil, role.write),
                    ("POST", "__job-1.items/changes", [["id": .string("y-\(name)"), "o": "M", "ccid": .string("c-\(name)"), "v": addingDiff(["a": 1])]], role.write),
                    ("GET", "__job-1.items/peerkey", nil, role.write),
                    ("POST", "__spaces__/job-1/members", ["email": "dan@example.com", "role": "reader"], role.manage),
                    ("DELETE", "__spaces__/job-1/members/dan@example.com", nil, role.manage),
                ]
                for (method, path, body, refusal) in cells {
                    let response = try await cast.request(role, method, path, body: body)
                    let cell = "\(name) \(method) \(path): \(response)"
                    guard let refusal else {
                        #expect(response.status == 200, "\(cell)")
                        continue
                    }
                    #expect(response.status == refusal, "\(cell)")
                    if refusal == 403 {
                        let right = path.hasPrefix("__spaces__") || path == "__job-1.items/restore" ? "owner right" : "write right"
                        #expect(response.errorMessage?.contains(right) == true, "the refusal names the right lacking: \(cell)")
                    }
                    if refusal == 404 {
                        // Exactly what a space that does not exist gets.
                        let none = try await cast.request(role, method, path.replacingOccurrences(of: "job-1", with: "job-0"), body: body)
                        #expect(none.status == 404)
                        #expect(response.text == none.text.replacingOccurrences(of: "job-0", with: "job-1"), "\(cell)")
                    }
                }
            }
            let sofa = try await cast.request(.owner, "GET", "__job-1.items/i/sofa")
            #expect(sofa.json == ["room": "lounge"], "no refused write changed anything")
            #expect(try await cast.request(.owner, "GET", "__job-1.items/i/y-reader").status == 404)
        }
    }

    @Test func overTheSocket() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let cast = try await Cast.make(server)
        for role in Role.allCases {
            let socket = try await SocketTestClient.connect(to: server)
            let auth = try await socket.initialize(bucket: "__job-1.items", token: cast.tokens[role]!, follow: false)
            guard role.read == nil else {
                let answer = try JSONValue(parsing: auth)
                #expect(answer["code"]?.integerValue == Int64(role.read!), "\(role): \(auth)")
                let none = try await socket.initialize(channel: 1, bucket: "__job-0.items", token: cast.tokens[role]!, follow: false)
                #expect(auth == none.replacingOccurrences(of: "job-0", with: "job-1"), "\(role): as for a space that does not exist")
                await socket.close()
                continue
            }
            #expect(!auth.hasPrefix("{"), "\(role): \(auth)")
            let index = try await socket.walkIndex()
            let listed = index.entries.compactMap { $0["id"]?.stringValue }
            #expect(listed.contains("sofa"), "\(role)")
            try await socket.send("0:e:sofa.1")
            #expect(await socket.next(startingWith: "0:e:") == "0:e:sofa.1\n" + #"{"data":{"room":"lounge"}}"#, "\(role)")
            try await socket.send("0:cv:\(index.current)")
            #expect(await socket.next(startingWith: "0:c:") == "0:c:[]", "\(role)")
            try await socket.send(changeMessage(id: "s-\(role.rawValue)", ccid: "s-\(role.rawValue)", diff: addingDiff(["a": 1])))
            let answer = try await socket.change()
            if let refusal = role.write {
                #expect(answer["error"]?.integerValue == Int64(refusal), "\(role): \(answer)")
                #expect(answer["message"]?.stringValue?.contains("write right") == true, "\(role): \(answer)")
            } else {
                #expect(answer["error"] == nil && answer["id"]?.stringValue == "s-\(role.rawValue)", "\(role): \(answer)")
            }
            await socket.close()
        }
        #expect(try await cast.request(.owner, "GET", "__job-1.items/i/s-reader").status == 404)
        #expect(try await cast.request(.owner, "GET", "__job-1.items/i/s-writer").status == 200)
    }
}
