import ChildProcesses
import Foundation
import LockstepCore
import LockstepServer
import Synchronization
import Testing

/// After `init`, every change reaches a channel once and in feed order, whatever the timing of
/// the client's requests, live changes and reconnects. Each test keeps a raw client's ghosts
/// (``GhostReplica``), which record any skipped or repeated change, and ends converged with the
/// server; every frame is also checked for `cv` order (``FeedOrderCheck``).
@Suite("Streaming socket: every change once, in order")
struct OnceInOrderTests {
    /// A client's `cv:` is held on the network while another client's change lands: the
    /// change arrives once (issue 27's first trace).
    @Test(.timeLimit(.minutes(1))) func aLateCvAfterAuthGetsEachChangeOnce() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let proxy = try await HoldingProxy.start(to: server.port)
        defer { Task { await proxy.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/n1?ccid=create", body: ["content": "hello world"])
        let cv = try #require(try await user.request("GET", "note/changes").json?[0]?["cv"]?.stringValue)
        var replica = GhostReplica(ghosts: ["n1": .init(version: 1, data: ["content": "hello world"])], cursor: cv)

        let b = try await SocketTestClient.connect(to: server)
        defer { Task { await b.close() } }
        try await b.initialize(token: user.token, clientID: "b", extra: ["cmd": .string("cv:\(cv)")])
        _ = try await b.json(after: "0:c:")
        let a = try await SocketTestClient.connect(to: server, port: proxy.port)
        defer { Task { await a.close() } }
        try await a.initialize(token: user.token, clientID: "a", follow: false)
        proxy.hold()
        try await a.send("0:cv:\(cv)")
        try await b.send(changeMessage(id: "n1", ccid: "b-1", sv: 1, diff: ["content": ["o": "d", "v": "=11\t+-B"]]))
        _ = try await b.change()
        try await Task.sleep(for: .milliseconds(300))
        proxy.release()

        _ = await a.mailbox.next(timeout: .seconds(5)) { $0.hasPrefix("0:c:") }.map { try? replica.take([$0]) }
        try await Task.sleep(for: .milliseconds(300))
        try replica.take(a.mailbox.drain())
        #expect(replica.cursor != cv)
        #expect(replica.objects == ["n1": ["content": "hello world-B"]])
        #expect(try await user.allObjects() == replica.objects)
    }

    /// A `cv:` older than what the channel was already sent live gets nothing again.
    @Test(.timeLimit(.minutes(1))) func aCvBehindLiveDeliveriesSendsOnlyWhatWasNot() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }
        try await client.initialize(token: user.token, clientID: "a")
        for number in 1...3 { _ = try await user.request("POST", "note/i/n\(number)?ccid=w\(number)", body: ["n": .integer(Int64(number))]) }
        let live = try await client.changes(3)
        let firstCV = try #require(live[0]["cv"]?.stringValue)

        try await client.send("0:cv:\(firstCV)")
        #expect(try await client.json(after: "0:c:") == [], "n2 and n3 were sent already")
        _ = try await user.request("POST", "note/i/n4?ccid=w4", body: ["n": 4])
        #expect(try await client.change()["ccids"] == ["w4"])
        #expect(await client.next(startingWith: "0:c:", timeout: .milliseconds(300)) == nil, "nothing twice")
    }

    /// Generated histories: another device writes while a client connects, asks late, is cut
    /// off mid-way and comes back with the `cv` of the last change it received. It never
    /// skips or repeats a change, and ends holding what the server holds.
    @Test(.timeLimit(.minutes(2)), arguments: 0..<6)
    func aClientCutAtRandomMomentsSkipsNothing(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let proxy = try await HoldingProxy.start(to: server.port)
        defer { Task { await proxy.stop() } }
        let user = try await server.createUser()
        var replica = GhostReplica()
        var client: SocketTestClient?
        var written = 0

        func write() async throws {
            written += 1
            let key = "k\(Int.random(in: 0..<4, using: &random))"
            if Int.random(in: 0..<6, using: &random) == 0 {
                _ = try await user.request("DELETE", "note/i/\(key)?ccid=w\(written)")
            } else {
                _ = try await user.request("POST", "note/i/\(key)?ccid=w\(written)", body: ["n": .integer(Int64(written)), "by": "writer"])
            }
        }
        for _ in 0..<30 {
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1:
                try await write()
            case 2 where client == nil:
                let connected = try await SocketTestClient.connect(to: server, port: proxy.port)
                try await connected.initialize(token: user.token, clientID: "a", follow: false)
                if let cursor = replica.cursor {
                    if Bool.random(using: &random) {
                        // The cv: waits on the network while the writer goes on; sometimes
                        // the connection drops right there, inside the window after auth:.
                        proxy.hold()
                        try await connected.send("0:cv:\(cursor)")
                        try await write()
                        if Int.random(in: 0..<3, using: &random) == 0 {
                            proxy.cutAll()
                            proxy.release()
                            _ = await connected.closed()
                            try replica.take(connected.mailbox.drain())
                            continue
                        }
                        proxy.release()
                    } else {
                        try await connected.send("0:cv:\(cursor)")
                    }
                } else {
                    let (entries, current) = try await connected.walkIndex()
                    replica.load(index: entries, current: current)
                }
                client = connected
            case 3 where client != nil:
                proxy.cutAll()
                _ = await client?.closed()
                try replica.take(client?.mailbox.drain() ?? [])
                client = nil
            default:
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...30, using: &random)))
                try replica.take(client?.mailbox.drain() ?? [])
            }
        }
        // Come back one last time and follow until quiet.
        if client == nil {
            let connected = try await SocketTestClient.connect(to: server)
            try await connected.initialize(token: user.token, clientID: "a", follow: false)
            if let cursor = replica.cursor {
                try await connected.send("0:cv:\(cursor)")
            } else {
                let (entries, current) = try await connected.walkIndex()
                replica.load(index: entries, current: current)
            }
            client = connected
        }
        let expected = try await user.allObjects()
        let deadline = ContinuousClock.now + .seconds(10)
        while replica.objects != expected && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            try replica.take(client?.mailbox.drain() ?? [])
        }
        #expect(replica.objects == expected, "seed \(seed)")
        await client?.close()
    }

    /// Two devices that were offline come back at once, each with an edit of the same object,
    /// while the server's CPU is busy; run many times. Both end with the server's data, each
    /// change received once.
    @Test(.timeLimit(.minutes(3))) func twoClientsComingBackAtOnceUnderLoad() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let load = CPULoad(processes: 2)
        defer { load.stop() }
        for round in 0..<25 {
            let key = "doc\(round)"
            _ = try await user.request("POST", "note/i/\(key)?ccid=\(key)-create", body: ["text": "hello world", "a": 0, "b": 0])
            let cv = try #require(try await user.request("GET", "note/changes").json?.arrayValue?.last?["cv"]?.stringValue)
            var replicas = [GhostReplica](repeating: GhostReplica(), count: 2)
            let clients = try await [SocketTestClient.connect(to: server), SocketTestClient.connect(to: server)]
            for (index, client) in clients.enumerated() {
                try await client.initialize(token: user.token, clientID: "c\(index)", follow: false)
                replicas[index] = GhostReplica(ghosts: try await user.allObjects().mapValues { .init(version: 1, data: $0) }, cursor: cv)
                // Stale ghosts for earlier rounds' objects do not matter: only this round's object changes.
                replicas[index].ghosts = replicas[index].ghosts.filter { $0.key == key }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, client) in clients.enumerated() {
                    group.addTask {
                        try await client.send("0:cv:\(cv)")
                        try await client.send(changeMessage(
                            id: key, ccid: "\(key)-\(index)", sv: 1,
                            diff: ["text": ["o": "d", "v": index == 0 ? "=11\t+-A" : "+B-\t=11"], index == 0 ? "a" : "b": ["o": "r", "v": 1]]))
                    }
                }
                try await group.waitForAll()
            }
            for (index, client) in clients.enumerated() {
                let deadline = ContinuousClock.now + .seconds(10)
                while replicas[index].ghosts[key]?.version ?? 0 < 3 && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                    try replicas[index].take(client.mailbox.drain())
                }
                try await Task.sleep(for: .milliseconds(50))
                try replicas[index].take(client.mailbox.drain())
                #expect(replicas[index].ghosts[key]?.version == 3, "round \(round), client \(index): both changes once")
                let expected: JSONObject = ["text": "B-hello world-A", "a": 1, "b": 1]
                #expect(replicas[index].ghosts[key]?.data == expected, "round \(round)")
                await client.close()
            }
        }
    }
}

/// Busy processes that keep the CPU loaded while a test runs. They run at a lower priority
/// (nice 10) than the tests, so they take the CPU the suite leaves idle without starving the
/// tests that run beside this one of their timers.
final class CPULoad: Sendable {
    private let processes: [ChildProcess]

    init(processes count: Int) {
        // Each loop also ends when the test process is gone, and none holds its output: a
        // loop left behind would keep `swift test` waiting on the test's pipe for ever.
        let parent = ProcessInfo.processInfo.processIdentifier
        processes = (0..<count).compactMap { _ in
            try? ChildProcess.spawn(
                "/usr/bin/nice", arguments: ["-n", "10", "/bin/sh", "-c", "while kill -0 \(parent) 2>/dev/null; do :; done"], output: .discarded)
        }
    }

    func stop() {
        // SIGKILL: a busy loop has nothing to finish.
        for process in processes { process.send(SIGKILL) }
    }
}

/// A reproducible random number generator (splitmix64).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The same promise across PostgreSQL nodes, where changes reach a node's channels through
/// the relay, possibly late and out of order.
@Suite("PostgreSQL: every change once, in order, across nodes")
struct OnceInOrderAcrossNodesTests {
    @Test(.timeLimit(.minutes(2))) func aChannelOnOneNodeGetsEveryChangeMadeOnTheOtherOnce() async throws {
        try await TwoNodes.with { one, two in
            let user = try await one.server.createUser()
            let client = try await SocketTestClient.connect(to: one.server)
            defer { Task { await client.close() } }
            try await client.initialize(token: user.token, clientID: "a", follow: false)
            var replica = GhostReplica()
            let (entries, current) = try await client.walkIndex()
            replica.load(index: entries, current: current)

            // Writers on both nodes at once; halfway, the client asks again from where it began.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, node) in [one, two].enumerated() {
                    group.addTask {
                        for number in 0..<30 {
                            _ = try await node.request(
                                user, "POST", "note/i/k\(number % 5)?ccid=n\(index)-\(number)",
                                body: ["n": .integer(Int64(number)), "node": .integer(Int64(index))])
                        }
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(100))
                    try await client.send("0:cv:\(current)")
                }
                try await group.waitForAll()
            }
            let expected = try await user.allObjects()
            let deadline = ContinuousClock.now + .seconds(20)
            while replica.objects != expected && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                try replica.take(client.mailbox.drain())
            }
            #expect(replica.objects == expected)
        }
    }
}
