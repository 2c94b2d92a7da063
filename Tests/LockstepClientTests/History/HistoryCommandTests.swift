import Foundation
import LockstepCore
import Testing

/// `lockstep client … history|compare|restore` and `lockstep buckets restore`, run as a script
/// runs them, against a real server.
@Suite("lockstep: history commands", .timeLimit(.minutes(3)))
struct HistoryCommandTests {
    @Test func anObjectsHistoryIsListedComparedAndRestored() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.createUser("mover@example.com")
        for notes in ["two seats", "two seats, grey", "two seats, grey, torn"] {
            let (status, _) = try await server.request("POST", "jobs/i/sofa?replace=1&clientid=phone-1", token: token, body: ["notes": .string(notes)])
            #expect(status == 200)
        }
        let store = temporaryStore()
        defer { removeStore(store) }
        let client = ["client", "--store", store.path, "--url", server.baseURL.absoluteString, "--app", server.appID, "--token", token]

        let history = try await LockstepTool.run(client + ["history", "--data", "jobs", "sofa"])
        #expect(history.status == 0, "\(history.output)")
        let lines = history.output.split(separator: "\n").filter { $0.hasPrefix("v") }
        #expect(lines.map { $0.prefix(3) } == ["v3\t", "v2\t", "v1\t"], "\(history.output)")
        // Who (a user's own bucket: their id), from which client, when (UTC, to the millisecond).
        #expect(lines.allSatisfy { $0.contains("\tuser ") && $0.contains("\tphone-1\t") && $0.contains("Z\t") }, "\(history.output)")
        #expect(history.output.contains(#"{"notes":"two seats, grey, torn"}"#), "--data prints each version's data: \(history.output)")

        let compared = try await LockstepTool.run(client + ["compare", "jobs", "sofa", "1", "3"])
        #expect(compared.status == 0 && compared.output.contains("v1 → v3"), "\(compared.output)")
        #expect(compared.output.contains("notes: two seats{+, grey, torn+}"), "\(compared.output)")

        let restored = try await LockstepTool.run(client + ["restore", "jobs", "sofa", "1"])
        #expect(restored.status == 0 && restored.output.contains("jobs/sofa is at v4, with the data of v1"), "\(restored.output)")
        #expect(try await server.objects("jobs", token: token)["sofa"] == ["notes": "two seats"])
        let after = try await LockstepTool.run(client + ["history", "--limit", "1", "jobs", "sofa"])
        #expect(after.output.hasPrefix("v4\t") && after.output.contains("restored from v1"), "\(after.output)")

        let refused = try await LockstepTool.run(client + ["restore", "jobs", "sofa", "99"])
        #expect(refused.status != 0 && refused.output.contains("sofa has no version 99: its latest is 4"), "\(refused.output)")
        let none = try await LockstepTool.run(client + ["history", "jobs", "nothing"])
        #expect(none.status != 0 && none.output.contains("there is no object nothing in jobs"), "\(none.output)")
    }

    @Test func aBucketIsRestoredToAMomentAfterADryRun() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.createUser("mover@example.com")
        for (key, room) in [("sofa", "lounge"), ("lamp", "study")] {
            #expect(try await server.request("POST", "jobs/i/\(key)", token: token, body: ["room": .string(room)]).status == 200)
        }
        let moment = server.services.clock.now() / 1_000_000 + 1
        while server.services.clock.now() <= moment * 1_000_000 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(try await server.request("POST", "jobs/i/sofa", token: token, body: ["room": "?"]).status == 200)
        #expect(try await server.request("POST", "jobs/i/chair", token: token, body: ["room": "?"]).status == 200)
        #expect(try await server.request("DELETE", "jobs/i/lamp", token: token).status == 200)
        let restore = [
            "buckets", "restore", "--url", server.baseURL.absoluteString, "--app", server.appID, "--token", server.app.adminToken,
            "--bucket", "jobs", "--owner", "mover@example.com", "--at", String(moment),
        ]

        let dry = try await LockstepTool.run(restore + ["--dry-run"])
        #expect(dry.status == 0, "\(dry.output)")
        #expect(dry.output.contains("2 objects would change (1 put back, 1 made since and removed)"), "\(dry.output)")
        #expect(dry.output.contains("1 removed since the moment stay removed: lamp"), "\(dry.output)")
        #expect(try await server.objects("jobs", token: token)["sofa"] == ["room": "?"], "a dry run changes nothing")

        let done = try await LockstepTool.run(restore)
        #expect(done.status == 0 && done.output.contains("2 objects changed"), "\(done.output)")
        #expect(try await server.objects("jobs", token: token) == ["sofa": ["room": "lounge"]])

        // Refusals come back as the server's sentence; a moment that is not one is refused before.
        let asUser = try await LockstepTool.run([
            "buckets", "restore", "--url", server.baseURL.absoluteString, "--app", server.appID, "--token", token, "--bucket", "jobs",
            "--at", "2026-12-07T14:04Z",
        ])
        #expect(asUser.status != 0 && asUser.output.contains("only the app's admin token restores bucket jobs to a moment"), "\(asUser.output)")
        let badMoment = try await LockstepTool.run(Array(restore.dropLast(2)) + ["--at", "yesterday"])
        #expect(badMoment.status != 0 && badMoment.output.contains("--at yesterday is not a moment"), "\(badMoment.output)")
        let both = try await LockstepTool.run(restore + ["--space", "job-1"])
        #expect(both.status != 0 && both.output.contains("give --owner or --space, not both"), "\(both.output)")
    }
}
