import Foundation
import LockstepCore
import Testing

/// `lockstep spaces …`, the built tool run as a separate process against a real server, as a
/// script would run it.
@Suite("lockstep spaces", .timeLimit(.minutes(2)))
struct SpacesCommandTests {
    @Test func aSpaceIsMadeSharedUsedAndDeletedFromTheCommandLine() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let ann = try await server.createUser("ann@example.com")
        let bob = try await server.createUser("bob@example.com")
        let eve = try await server.createUser("eve@example.com")
        func spaces(_ token: String, _ arguments: [String]) async throws -> Run {
            let result = try await LockstepTool.run(
                ["spaces", "--url", server.baseURL.absoluteString, "--app", server.appID, "--token", token] + arguments)
            return Run(status: result.status, lines: result.output.split(separator: "\n").map(String.init))
        }

        #expect(try await spaces(ann, ["create", "job-1"]) == Run(status: 0, lines: ["created space job-1"]))
        #expect(try await spaces(ann, ["invite", "job-1", "bob@example.com", "--as", "writer"]).status == 0)
        #expect(try await spaces(ann, ["invite", "job-1", "cat@example.com", "--as", "reader"]).status == 0)
        #expect(try await spaces(bob, ["list"]) == Run(status: 0, lines: ["job-1\twriter"]))
        let shown = try await spaces(bob, ["show", "job-1"])
        #expect(shown.status == 0)
        #expect(shown.lines.sorted() == ["ann@example.com\towner", "bob@example.com\twriter", "cat@example.com\treader"])

        // `lockstep client` reaches the space's bucket by its name.
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = ["client", "--store", store.path, "--url", server.baseURL.absoluteString, "--app", server.appID, "--token", bob]
        #expect(try await LockstepTool.run(client + ["put", "__job-1.items", "sofa", #"{"room":"lounge"}"#]).status == 0)
        let synced = try await LockstepTool.run(client + ["sync", "--once", "--timeout", "30"])
        #expect(synced.status == 0, "\(synced.output)")
        #expect(try await server.objects("__job-1.items", token: ann) == ["sofa": ["room": "lounge"]])

        // Refusals are said in a sentence, and change nothing.
        for (token, arguments, says) in [
            (bob, ["delete", "job-1"], "needs the owner right"),
            (ann, ["leave", "job-1"], "last owner"),
            (eve, ["show", "job-1"], "there is no space job-1"),
            (ann, ["invite", "job-1", "not-an-email", "--as", "reader"], "not an email address"),
            (ann, ["invite", "job-1", "cat@example.com", "--as", "admin"], "--as"),
            (ann, ["create", "Job 2"], "not a valid space name"),
            (ann, ["remove", "job-1", "dan@example.com"], "dan@example.com is not a member of space job-1"),
        ] {
            let refused = try await spaces(token, arguments)
            #expect(refused.status != 0 && refused.lines.contains { $0.contains(says) }, "\(arguments): \(refused.lines)")
        }
        #expect(try await spaces(ann, ["show", "job-1"]).lines.count == 3)

        #expect(try await spaces(ann, ["remove", "job-1", "bob@example.com"]) == Run(status: 0, lines: ["removed bob@example.com from space job-1"]))
        #expect(try await spaces(bob, ["list"]) == Run(status: 0, lines: []))
        #expect(try await spaces(ann, ["delete", "job-1"]) == Run(status: 0, lines: ["deleted space job-1"]))
        #expect(try await spaces(ann, ["list"]) == Run(status: 0, lines: []))
    }

    /// How a run of the tool ended: its exit status and the lines it printed.
    struct Run: Equatable {
        var status: Int32
        var lines: [String]
    }
}
