import Foundation
import LockstepClient
import LockstepCore
import LockstepServer
import Testing

/// A device edits a note offline while another makes many changes to it; when it comes back,
/// its edit survives and every replica ends the same (issue 23's scenario, with the SDK).
@Suite("SDK: offline edits survive a busy history")
struct OfflineHistoryTests {
    @Test(.timeLimit(.minutes(3)), arguments: [70, 1000])
    func anOfflineEditSurvivesManyChanges(changes count: Int) async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.createUser()
        let storeB = temporaryStore()
        defer { removeStore(storeB) }

        let a = try server.client(token: token, transport: .socket)
        await a.sync.start()
        try await a.bucket("notes").put("note", ["content": "hello world", "n": 0])
        try await a.sync.waitUntilIdle()
        do {
            let b = try server.client(store: storeB, token: token, transport: .socket)
            await b.sync.start()
            try await eventually("B has the note") { try b.bucket("notes").get("note") != nil }
            await b.close()
        }

        // B, offline, edits the end of the text and a member of its own.
        let offline = try server.client(store: storeB, token: token, transport: .socket)
        try await offline.bucket("notes").update("note") { note in
            note["content"] = .string((note["content"]?.stringValue ?? "") + "-B")
            note["tag"] = "b"
        }
        await offline.close()

        // Meanwhile A changes the counter every time and the text's start every tenth time.
        for number in 1...count {
            try await a.bucket("notes").update("note") { note in
                note["n"] = .integer(Int64(number))
                if number.isMultiple(of: 10) { note["content"] = .string("A" + (note["content"]?.stringValue ?? "")) }
            }
        }
        try await a.sync.waitUntilIdle()

        // B comes back: its queued edit rebases over every change A made; then it edits once more.
        let b = try server.client(store: storeB, token: token, transport: .socket)
        await b.sync.start()
        try await b.sync.waitUntilIdle()
        let prefix = String(repeating: "A", count: count / 10)
        let expected: JSONObject = ["content": .string(prefix + "hello world-B"), "n": .integer(Int64(count)), "tag": "b"]
        do {
            try await eventually("the server has both devices' edits") { try await server.objects("notes", token: token)["note"] == expected }
        } catch {
            Issue.record("the server holds \(try await server.objects("notes", token: token)["note"] ?? [:]), B \(try b.bucket("notes").get("note") ?? [:])")
            throw error
        }
        try await b.bucket("notes").update("note") { $0["content"] = .string(($0["content"]?.stringValue ?? "") + "!") }
        try await b.sync.waitUntilIdle()
        var final = expected
        final["content"] = .string(prefix + "hello world-B!")
        try await eventually("every replica converges") {
            try await server.objects("notes", token: token)["note"] == final && a.bucket("notes").get("note") == final
                && b.bucket("notes").get("note") == final
        }
        await a.close()
        await b.close()
    }
}
