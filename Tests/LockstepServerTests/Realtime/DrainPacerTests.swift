import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// An event loop that just wrote a change to many sockets writes the next ones once its linger
/// is over, all in one write; one that has been quiet for as long writes at once; a change for
/// a few sockets is never held.
@Suite("Streaming socket: pacing live changes")
struct DrainPacerTests {
    private static let linger = 5.0

    /// A sender and a receiver on a server whose pacers pace deliveries to `minimumFanOut` sockets or more.
    private struct Pair {
        let server: TestServer
        let sender: SocketTestClient
        let receiver: SocketTestClient

        static func start(minimumFanOut: Int, linger: Double = DrainPacerTests.linger) async throws -> Pair {
            var limits = TestServer.testLimits
            limits.announcementLingerSeconds = linger
            let server = try await TestServer.start(limits: limits) { services in
                services.drainPacers = DrainPacers(lingerSeconds: linger, minimumFanOut: minimumFanOut)
            }
            let user = try await server.createUser()
            let sender = try await SocketTestClient.connect(to: server)
            let receiver = try await SocketTestClient.connect(to: server)
            try await sender.initialize(token: user.token, clientID: "sender")
            try await receiver.initialize(channel: 4, token: user.token, clientID: "receiver")
            return Pair(server: server, sender: sender, receiver: receiver)
        }

        func stop() async {
            await sender.close()
            await receiver.close()
            await server.stop()
        }

        func send(_ number: Int) async throws {
            try await sender.send(changeMessage(id: "paced", ccid: "s-\(number)", diff: addingDiff(["k\(number)": .integer(Int64(number))])))
        }

        /// The ccids of the next frame of changes the receiver gets, and when it got it.
        func receive() async throws -> (ccids: [String], at: ContinuousClock.Instant) {
            let message = try #require(await receiver.next(startingWith: "4:c:", timeout: .seconds(30)))
            let changes = try #require(try JSONValue(parsing: String(message.dropFirst(4))).arrayValue)
            return (changes.compactMap { $0["ccids"]?.arrayValue?.first?.stringValue }, .now)
        }
    }

    @Test(.timeLimit(.minutes(2))) func changesDuringALingerGoOutTogetherAndAQuietOneAtOnce() async throws {
        let pair = try await Pair.start(minimumFanOut: 1)
        defer { Task { await pair.stop() } }

        // The receiver's event loop has written no change yet: the first goes out at once.
        let sentFirst = ContinuousClock.now
        try await pair.send(0)
        let first = try await pair.receive()
        #expect(first.ccids == ["s-0"])

        // Committed within the linger that the first one's write began, the next two wait for
        // its end and go out together (as their own frames, in one write). (The first's write
        // began after it was sent: timed from there, the bound holds however late a loaded
        // machine reads the frames.)
        try await pair.send(1)
        try await pair.send(2)
        var paced: [String] = []
        while paced.count < 2 {
            let next = try await pair.receive()
            paced += next.ccids
            #expect(next.at - sentFirst > .seconds(Self.linger - 0.1), "\(next.ccids) came \(next.at - sentFirst) after the first was sent")
        }
        #expect(paced == ["s-1", "s-2"])

        // A linger after the last write, a change is not held.
        try await Task.sleep(for: .seconds(Self.linger + 0.5))
        let sent = ContinuousClock.now
        try await pair.send(3)
        let third = try await pair.receive()
        #expect(third.ccids == ["s-3"])
        #expect(third.at - sent < .seconds(Self.linger - 0.5), "a change after a quiet spell took \(third.at - sent)")
    }

    /// A client that sends its next change as soon as the last is answered keeps its pace when
    /// only a device or two listen.
    ///
    /// A held change would take the whole linger to arrive; the linger here is long (30 s), so
    /// that a round trip slowed by a loaded machine (three took 4.6 s in a full parallel run)
    /// is not mistaken for one held.
    @Test(.timeLimit(.minutes(2))) func aChangeForAFewSocketsIsNeverHeld() async throws {
        let linger = 30.0
        let pair = try await Pair.start(minimumFanOut: 16, linger: linger)
        defer { Task { await pair.stop() } }

        for number in 0..<3 {
            let sent = ContinuousClock.now
            try await pair.send(number)
            let received = try await pair.receive()
            #expect(received.ccids == ["s-\(number)"])
            #expect(received.at - sent < .seconds(linger - 10), "change \(number) took \(received.at - sent)")
        }
    }
}
