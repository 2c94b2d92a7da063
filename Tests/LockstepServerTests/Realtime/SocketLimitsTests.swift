import Foundation
import LockstepCore
import LockstepServer
import NIOWebSocket
import Testing

@Suite("Streaming socket: message size, slow readers, heartbeats, rate")
struct SocketLimitsTests {
    @Test func oversizedMessagesAreRefusedAndTooLargeFramesClose() async throws {
        var limits = TestServer.testLimits
        limits.maximumMessageBytes = 64 * 1024
        limits.maximumFrameBytes = 256 * 1024
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/n1", body: ["kept": true])
        let client = try await SocketTestClient.connect(to: server)
        try await client.initialize(token: user.token, clientID: "c1")

        let big = String(repeating: "x", count: 100 * 1024)
        try await client.send(changeMessage(id: "n2", ccid: "big", diff: addingDiff(["text": .string(big)])))
        let refusal = try firstChange(try await client.json(after: "0:c:"))
        #expect(refusal["error"] == 413)
        #expect(refusal["ccids"] == ["big"], "the client learns which change to drop")
        #expect(refusal["message"]?.stringValue?.contains("limit is 65536") == true)
        try await client.send("0:i:\(big)")
        #expect(try await client.json(after: "0:?:")["code"] == 413)
        try await client.send("h:1")
        #expect(await client.next(startingWith: "h:") == "h:2", "the connection stays open")

        // A frame past what the server reads at all closes the connection: 1009, message too big.
        try await client.send("0:c:" + String(repeating: "y", count: 300 * 1024))
        let close = await client.closed()
        #expect(close?.closeCode == .messageTooLarge)
        #expect(try await user.request("GET", "note/i/n1").json == ["kept": true])
        #expect(try await user.request("GET", "note/i/n2").status == 404)
    }

    @Test func aSlowReaderIsClosedWithBoundedMemoryWhileOthersKeepUp() async throws {
        var limits = TestServer.testLimits
        limits.outgoingBufferBytes = 256 * 1024
        // No pings: the slow reader answers none, and must be closed for its queue, not its silence.
        limits.heartbeatTimeoutSeconds = 0
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let events = ConnectionEvents(server)
        let slow = try await SocketTestClient.connect(to: server, reading: false)
        let slowID = try #require(await events.opened.next(timeout: .seconds(5)) { _ in true }?.id)
        let healthy = try await SocketTestClient.connect(to: server)
        defer { Task { await slow.close(); await healthy.close() } }
        try await slow.send(#"0:init:{"name":"note","token":"\#(user.token)","clientid":"slow","cmd":"i::::100"}"#)
        try await healthy.initialize(token: user.token, clientID: "healthy")
        let scope = BucketScope(appID: server.appID, owner: .user(user.userID), bucket: "note")
        try await waitUntil { server.services.hub.subscriberCount(scope) == 2 }

        // Changes of 64 KiB each until the slow reader's socket buffers and queue are full. The
        // reader that keeps up reads each before the next is written: in this process, on a
        // loaded machine, it could otherwise fall behind by the whole limit and be closed too.
        let text = JSONValue.string(String(repeating: "z", count: 64 * 1024))
        var end: SocketConnectionEnd?
        var written = 0
        while end == nil && written < 2000 {
            written += 1
            let change = IncomingChange(
                key: "n\(written)", changeID: "w\(written)", clientID: "writer",
                operation: .modify(diff: nil, fullData: ["text": text]), sourceVersion: nil, editTime: nil)
            try await server.services.buckets.apply(change, to: scope, by: .trusted)
            #expect(try await healthy.change()["ccids"] == [.string("w\(written)")])
            end = await events.ends.next(timeout: .milliseconds(1)) { _ in true }
        }
        if end == nil { end = await events.nextEnd() }
        let closed = try #require(end)
        #expect(closed.connection.id == slowID)
        #expect(closed.reason == .slowReader)
        #expect(closed.peakQueuedBytes <= limits.outgoingBufferBytes + 70 * 1024, "the limit plus one message at most")

        // The reader that keeps up got every change, in order (above), and is still connected.
        try await healthy.send("h:1")
        #expect(await healthy.next() == "h:2")
        #expect(server.services.connections.count == 1)
    }

    @Test func aSilentPeerIsClosedByTheHeartbeatTimeoutWhileAQuietOneStays() async throws {
        var limits = TestServer.testLimits
        // Pings every 2.5 s: room for a loaded machine (the whole suite runs in one process on
        // two cores) to answer them in time.
        limits.heartbeatTimeoutSeconds = 5
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let events = ConnectionEvents(server)
        let quiet = try await SocketTestClient.connect(to: server)
        let quietID = try #require(await events.opened.next(timeout: .seconds(5)) { _ in true }?.id)
        let silent = try await SocketTestClient.connect(to: server, reading: false)
        defer { Task { await quiet.close(); await silent.close() } }
        let started = ContinuousClock.now

        // The silent peer neither sends nor answers the server's pings.
        let end = try #require(await events.nextEnd(timeout: .seconds(15)))
        #expect(end.connection.id != quietID)
        #expect(end.reason == .ended)
        #expect(ContinuousClock.now - started < .seconds(12))

        // The quiet one never sends h: but its WebSocket answers pings, so it stays.
        try await Task.sleep(for: .seconds(6))
        #expect(server.services.connections.openConnections.map(\.id) == [quietID])
        try await quiet.send("h:1")
        // It answers: how soon is not what is checked (a closed socket ends the wait at once), and
        // a clean CI run, its cooperative pool held by other tests, took longer than 10 s to.
        #expect(await quiet.next(timeout: .seconds(60)) == "h:2")
    }

    @Test func aPeerThatStopsReadingMidStreamIsClosedAndForgotten() async throws {
        var limits = TestServer.testLimits
        limits.heartbeatTimeoutSeconds = 1
        limits.outgoingBufferBytes = 1 << 30
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        _ = try await user.request("POST", "note/i/big", body: ["text": .string(String(repeating: "b", count: 256 * 1024))])
        let events = ConnectionEvents(server)
        let gone = try await SocketTestClient.connect(to: server, reading: false)
        defer { Task { await gone.close() } }
        try await gone.send(#"0:init:{"name":"note","token":"\#(user.token)","clientid":"gone"}"#)

        // Far more than the socket buffers hold: writes stall, and the pings queue behind them.
        let started = ContinuousClock.now
        for _ in 1...40 { try await gone.send("0:e:big.1") }
        let end = try #require(await events.nextEnd(timeout: .seconds(30)))
        #expect(ContinuousClock.now - started < .seconds(25))
        #expect([SocketCloseReason.slowReader, .ended].contains(end.reason))
        #expect(server.services.connections.count == 0)
        #expect(server.services.hub.subscriberCount(BucketScope(appID: server.appID, owner: .user(user.userID), bucket: "note")) == 0)
    }

    @Test func aFloodingClientIsSlowedToItsRate() async throws {
        var limits = TestServer.testLimits
        limits.messagesPerSecond = 100
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let client = try await SocketTestClient.connect(to: server)
        defer { Task { await client.close() } }

        // A burst of 200 passes at once; the next 100 take a second at 100 a second.
        let started = ContinuousClock.now
        for count in 1...300 { try await client.send("h:\(count)") }
        for count in 1...300 { #expect(await client.next() == "h:\(count + 1)") }
        #expect(ContinuousClock.now - started >= .seconds(0.8))
    }

    /// A client whose pipelined changes wait for the server is not taken for dead: it is quiet
    /// because it waits for answers, and its pongs are seen as they arrive, ahead of the
    /// handling (``SocketHeartbeat``). Here the change pace holds 92 queued changes back for 23
    /// seconds, longer than the heartbeat timeout (16 s). The timeout is long because at the
    /// start of the full suite CPU-bound tests hold the two threads of Swift's cooperative pool
    /// for seconds at a time (3-8 s, measured), and this test's client answers pings from that pool.
    @Test(.timeLimit(.minutes(2))) func aClientWhoseChangesWaitIsNotTakenForDead() async throws {
        var limits = TestServer.testLimits
        limits.changesPerSecond = 4
        limits.heartbeatTimeoutSeconds = 16
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let sender = try await SocketTestClient.connect(to: server)
        defer { Task { await sender.close() } }
        try await sender.initialize(token: user.token, clientID: "sender")

        let count = 100
        for number in 0..<count {
            try await sender.send(changeMessage(id: "n\(number % 5)", ccid: "p-\(number)", diff: addingDiff(["k": .integer(Int64(number))])))
        }
        var acknowledged = 0
        // Acknowledgements come every 0.25 s; the wait for the next is long for the same reason.
        while acknowledged < count, let message = await sender.next(startingWith: "0:c:", timeout: .seconds(30)) {
            acknowledged += try #require(try JSONValue(parsing: String(message.dropFirst(4))).arrayValue).count
        }
        #expect(acknowledged == count, "the connection ended after \(acknowledged) of \(count) changes")
        #expect(server.services.connections.count == 1)
    }
}
