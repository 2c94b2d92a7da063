import Foundation
@testable import LockstepClient
import LockstepCore
import Testing

/// A client killed with SIGKILL at random moments, whatever it was writing, reopens standing
/// exactly at a cursor of the feed, and every put that returned is there.
@Suite("Killed clients", .serialized)
struct KilledClientTests {
    static let bucket = "items"

    @Test("a syncing client killed ten times mid-stream always reopens at a cursor, and catches up")
    func killedWhileReceiving() async throws {
        let server = try await TestServer.start()
        let token = try await server.createUser()
        let store = temporaryStore()
        defer { removeStore(store) }
        let arguments = [
            "client", "--store", store.path, "--url", server.baseURL.absoluteString, "--app", server.appID, "--token", token,
            "sync",
        ]

        // The client has walked the bucket while it was empty: from here on everything it holds
        // comes from the change feed.
        try await server.syncedClient(store: store, token: token, bucket: Self.bucket).close()

        // Another device edits twenty objects without pause, its changes pipelined.
        let other = try server.client(token: token, transport: .socket)
        let items = try other.bucket(Self.bucket)
        await other.sync.start()
        let writing = Task {
            var round: Int64 = 0
            while !Task.isCancelled {
                let text = String(repeating: "x", count: Int(round % 50))
                try await items.put("k-\(round % 20)", ["round": .integer(round), "text": .string(text)])
                round += 1
            }
        }

        var random = SystemRandomNumberGenerator()
        var cursors: Set<String> = []
        for kill in 0..<10 {
            // Killed at a random moment once it is taking changes in (it prints each as it lands).
            let syncing = try ToolProcess.launch("lockstep", name: "sync \(kill)", arguments: arguments)
            let receiving = await syncing.next(startingWith: "remote\t", within: .seconds(30))
            try #require(receiving != nil, "the client took no change in: \(syncing.transcript)")
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...400, using: &random)))
            syncing.kill()
            _ = await syncing.exitStatus(within: .seconds(10))
            let snapshot = try StoreSnapshot.read(store, bucket: Self.bucket)
            // The feed only grows, so what it holds up to the cursor is settled.
            let feed = try await server.feed(Self.bucket, token: token)
            #expect(snapshot.ghosts == (try Feed.ghosts(after: feed.through(snapshot.cursor))), "after kill \(kill)")
            #expect(snapshot.objects == snapshot.ghosts.mapValues(\.data), "after kill \(kill)")
            if let cursor = snapshot.cursor { cursors.insert(cursor) }
        }
        writing.cancel()
        _ = await writing.result
        try await other.sync.waitUntilIdle()
        await other.close()
        #expect(cursors.count == 10, "each run took changes in before it was killed")

        let feed = try await server.feed(Self.bucket, token: token)
        let syncing = try ToolProcess.launch("lockstep", name: "sync at last", arguments: arguments)
        try await eventually("the client catches up") {
            try StoreSnapshot.read(store, bucket: Self.bucket).cursor == feed.changes.last?.cursor
        }
        syncing.kill()
        _ = await syncing.exitStatus(within: .seconds(10))
        #expect(try StoreSnapshot.read(store, bucket: Self.bucket).ghosts == (try Feed.ghosts(after: feed.changes)))
        print("killed 10 times while receiving \(feed.changes.count) changes: reopened at \(cursors.count) different cursors")
        await server.stop()
    }

    @Test("every put that returned is in the store after the process writing is killed, ten times")
    func killedWhilePutting() async throws {
        let store = temporaryStore()
        defer { removeStore(store) }
        let lockstep = LockstepTool.executable.path
        var random = SystemRandomNumberGenerator()
        var returned: Set<String> = []
        for kill in 0..<10 {
            // One put per process, each reported only once it returned; the kill takes the
            // shell and the put under way together.
            let script = """
                for n in $(seq 0 999); do
                  "\(lockstep)" client --store "\(store.path)" --url http://127.0.0.1:9 --app app --token t \\
                    put items "k-\(kill)-$n" '{"n":'$n'}' && echo "returned k-\(kill)-$n"
                done
                """
            let putting = try ToolProcess.launch(at: URL(fileURLWithPath: "/bin/bash"), name: "puts \(kill)", arguments: ["-c", script])
            let first = await putting.next(startingWith: "returned ", within: .seconds(30))
            try #require(first != nil, "no put returned: \(putting.transcript)")
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...600, using: &random)))
            putting.killGroup()
            _ = await putting.exitStatus(within: .seconds(10))
            returned.formUnion(putting.lines(startingWith: "returned ").map { String($0.dropFirst("returned ".count)) })
            let stored = try StoreSnapshot.read(store, bucket: "items").objects
            #expect(returned.subtracting(stored.keys).isEmpty, "after kill \(kill): \(returned.subtracting(stored.keys).sorted())")
        }
        #expect(returned.count >= 10, "at least one put a round")
        print("killed 10 times while putting: all \(returned.count) puts that returned were stored")
    }
}
