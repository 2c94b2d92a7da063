import Foundation
import LockstepCore
import LockstepServer
import Testing

/// A catch-up far longer than the outgoing buffer is paced by the reader, not dropped: the
/// server waits for room between pages (``SocketOutbox``), and room comes back as the kernel
/// takes the bytes, whether the outbox follows its drains with promises or confirms them later.
@Suite("Streaming socket: a long catch-up through a small buffer")
struct CatchUpPacingTests {
    @Test(.timeLimit(.minutes(2))) func aCatchUpTenTimesTheBufferArrivesWholeAndInOrder() async throws {
        var limits = TestServer.testLimits
        limits.outgoingBufferBytes = 64 * 1024
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/first?ccid=first", body: ["n": 0])
        let cv = try #require(try await user.request("GET", "note/changes").json?[0]?["cv"]?.stringValue)
        let scope = BucketScope(appID: server.appID, owner: .user(user.userID), bucket: "note")
        // 640 KiB of changes after `cv`: ten times the buffer, in changes of about 1 KiB.
        let text = JSONValue.string(String(repeating: "p", count: 1024))
        let count = 640
        for number in 1...count {
            let change = IncomingChange(
                key: "n\(number)", changeID: "c\(number)", clientID: "writer",
                operation: .modify(diff: nil, fullData: ["text": text]), sourceVersion: nil, editTime: nil)
            try await server.services.buckets.apply(change, to: scope, by: .trusted)
        }

        let events = ConnectionEvents(server)
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }
        try await client.initialize(token: user.token, clientID: "reader", follow: false)
        try await client.send("0:cv:\(cv)")
        let received = try await client.changes(count, timeout: .seconds(60))
        #expect(received.map { $0["ccids"] } == (1...count).map { JSONValue.array([.string("c\($0)")]) }, "every change once, in order")
        try await client.send("h:1")
        #expect(await client.next(startingWith: "h:") == "h:2", "the connection stays open")
        #expect(await events.nextEnd(timeout: .milliseconds(200)) == nil, "no one was closed as a slow reader")
    }
}
