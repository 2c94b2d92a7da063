import Foundation
import LockstepCore
import LockstepPostgres
import LockstepServer
import PostgresNIO
import Testing

/// Two real server nodes on one PostgreSQL database, each with its change relay, as
/// `lockstep serve --database-url` runs them.
@Suite("PostgreSQL: two server nodes on one database")
struct TwoNodeTests {
    @Test func aChangeWrittenOnOneNodeWakesALongPollOnTheOther() async throws {
        try await TwoNodes.with { one, two in
            let user = try await one.server.createUser()
            let scope = BucketScope(appID: one.server.appID, owner: .user(user.userID), bucket: "notes")
            let index = try await two.request(user, "GET", "notes/index")
            let current = try #require(index.json?["current"]?.stringValue)

            let started = ContinuousClock.now
            let poll = Task { try await two.request(user, "GET", "notes/changes?cv=\(current)") }
            try await waitUntil { two.server.services.hub.subscriberCount(scope) > 0 }
            let write = try await one.request(user, "POST", "notes/i/n1", body: ["title": "milk"])
            #expect(write.status == 200)

            let response = try await poll.value
            let waited = ContinuousClock.now - started
            #expect(response.status == 200)
            let changes = try #require(response.json?.arrayValue)
            #expect(changes.count == 1)
            #expect(changes.first?["id"]?.stringValue == "n1")
            #expect(changes.first?["ev"]?.integerValue == 1)
            // The long poll waits up to 30 s; only the relay can have woken it this early.
            #expect(waited < .seconds(15), "the long poll on node 2 was not woken by the write on node 1")
        }
    }

    /// Pipelined changes are committed in groups; a group notifies once per app, naming the
    /// run of the app's commit order it took, and the other node reads the run back from the
    /// database: each change reaches its channels there once, in the order it was sent.
    @Test(.timeLimit(.minutes(2))) func changesCommittedInGroupsReachTheOtherNodeOnceAndInOrder() async throws {
        try await TwoNodes.with { one, two in
            let perWriter = 40
            let users = [try await one.server.createUser(), try await one.server.createUser()]
            let payloads = try await TwoNodes.withNotifications(of: one) { payloads in
                var watchers: [SocketTestClient] = []
                var writers: [SocketTestClient] = []
                for (index, user) in users.enumerated() {
                    let watcher = try await SocketTestClient.connect(to: two.server, app: one.server.appID)
                    try await watcher.initialize(token: user.token, clientID: "watcher-\(index)")
                    watchers.append(watcher)
                    let writer = try await SocketTestClient.connect(to: one.server)
                    try await writer.initialize(token: user.token, clientID: "writer-\(index)")
                    writers.append(writer)
                }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, writer) in writers.enumerated() {
                        group.addTask {
                            for number in 0..<perWriter {
                                let ccid = "w\(index)-\(number)"
                                try await writer.send(changeMessage(id: "k\(number % 7)", ccid: ccid, data: ["n": .integer(Int64(number))]))
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                for (index, watcher) in watchers.enumerated() {
                    let received = try await watcher.changes(perWriter, timeout: .seconds(30))
                    #expect(received.compactMap { $0["ccids"]?[0]?.stringValue } == (0..<perWriter).map { "w\(index)-\($0)" })
                    #expect(received.allSatisfy { $0["error"] == nil }, "\(received.filter { $0["error"] != nil })")
                    await #expect(throws: (any Error).self, "a change delivered twice") {
                        try await watcher.changes(1, timeout: .milliseconds(300))
                    }
                }
                for client in watchers + writers { await client.close() }
                return payloads.drain()
            }
            // The groups took runs: one notification for several changes.
            let notes = try payloads.map { try JSONValue(parsing: $0) }
            #expect(notes.contains { $0["f"] != nil }, "no group of several changes was notified: \(payloads)")
            #expect(notes.count < 2 * perWriter, "\(notes.count) notifications for \(2 * perWriter) changes")
        }
    }

    @Test func concurrentWritesFromBothNodesAllLand() async throws {
        try await TwoNodes.with { one, two in
            let user = try await one.server.createUser()
            // 16 writes of one object: each can lose the compare-and-swap at most 15 times,
            // within the bucket service's 16 attempts, so every one must land.
            let writes = (0..<16).map { index in (node: index.isMultiple(of: 2) ? one : two, field: "f\(index)") }
            let versions = try await withThrowingTaskGroup(of: Int?.self) { group in
                for write in writes {
                    group.addTask {
                        let response = try await write.node.request(user, "POST", "notes/i/shared", body: [write.field: .string(write.field)])
                        #expect(response.status == 200, "\(response)")
                        return response.header("X-Simperium-Version").flatMap { Int($0) }
                    }
                }
                return try await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            #expect(versions.compactMap { $0 }.sorted() == Array(1...16))

            for node in [one, two] {
                let object = try await node.request(user, "GET", "notes/i/shared")
                #expect(object.header("X-Simperium-Version") == "16")
                #expect(object.json?.objectValue?.keys.sorted() == writes.map(\.field).sorted())
            }
            let scope = BucketScope(appID: one.server.appID, owner: .user(user.userID), bucket: "notes")
            let epoch = try await one.store.currentVersion(of: scope).epoch
            let feed = try #require(try await two.store.feed(scope, after: ChangeVersion(epoch: epoch, sequence: 0), limit: 100))
            #expect(feed.map(\.sequence) == Array(1...16))
            #expect(feed.map(\.endVersion) == Array(1...16))
        }
    }

    @Test func changesMissedWhileTheRelayWasDisconnectedAreCaughtUp() async throws {
        try await TwoNodes.with(reconnectDelay: .seconds(3)) { one, two in
            let user = try await one.server.createUser()
            let scope = BucketScope(appID: one.server.appID, owner: .user(user.userID), bucket: "notes")
            let (events, continuation) = AsyncStream.makeStream(of: ChangeEvent.self)
            let subscription = two.server.services.hub.subscribe(scope) { continuation.yield($0) }
            defer { two.server.services.hub.unsubscribe(subscription) }

            // Cut node 2's listening connection, and write on node 1 while it is down: the
            // notification goes nowhere, so only the catch-up after reconnecting can bring it.
            // (Written straight through node 1's bucket service, to stay well inside the reconnect delay.)
            try await TwoNodes.terminateRelayConnection(of: two)
            try await one.server.services.buckets.apply(
                IncomingChange(key: "n1", changeID: "missed", clientID: "test", operation: .merge(["title": "missed"]), sourceVersion: nil, editTime: nil),
                to: scope, by: .trusted)
            #expect(two.relay.generation == 1, "node 2 listened again before the write: the catch-up was not exercised")

            let event = try #require(await first(of: events, within: .seconds(15)))
            #expect(event.change.key == "n1" && event.change.endVersion == 1)
            // The catch-up announces what it found just before the relay counts itself listening.
            #expect(await completes(within: .seconds(5)) { await two.relay.waitUntilListening(generation: 2) })

            // And it keeps relaying live notifications after the reconnect.
            _ = try await one.request(user, "POST", "notes/i/n2", body: ["title": "live"])
            let live = try #require(await first(of: events, within: .seconds(15)))
            #expect(live.change.key == "n2")
        }
    }

    @Test func aListeningConnectionThatStopsAnsweringIsReplaced() async throws {
        try await TwoNodes.with(heartbeatTimeout: .milliseconds(500)) { one, two in
            let user = try await one.server.createUser()
            let scope = BucketScope(appID: one.server.appID, owner: .user(user.userID), bucket: "notes")
            let (events, continuation) = AsyncStream.makeStream(of: ChangeEvent.self)
            let subscription = two.server.services.hub.subscribe(scope) { continuation.yield($0) }
            defer { two.server.services.hub.unsubscribe(subscription) }

            // Freeze node 2's listening backend: its socket stays open but nothing answers, as
            // when a network drops packets without a word. Only the heartbeat can notice.
            let frozen = try await TwoNodes.freezeRelayBackend(of: two)
            defer { kill(frozen, SIGCONT) }
            let replaced = await completes(within: .seconds(15)) { await two.relay.waitUntilListening(generation: 2) }
            kill(frozen, SIGCONT)
            #expect(replaced, "the relay kept waiting on a connection that no longer answered")

            _ = try await one.request(user, "POST", "notes/i/n1", body: ["title": "after"])
            let event = try #require(await first(of: events, within: .seconds(15)))
            #expect(event.change.key == "n1")
        }
    }
}


/// The next element of `stream`, or `nil` if none comes within `limit`.
func first<Element: Sendable>(of stream: AsyncStream<Element>, within limit: Duration) async -> Element? {
    await withTaskGroup(of: Element?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}


/// Whether `operation` finished within `limit` (it is cancelled if not).
func completes(within limit: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            await operation()
            return !Task.isCancelled
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return false
        }
        let result = await group.next() ?? false
        group.cancelAll()
        return result
    }
}
