import Foundation
import LockstepCore
@testable import LockstepServer
import Testing

/// An event loop that just wrote live changes writes the next ones once its linger is over, all
/// together; one that has been quiet for as long writes at once.
@Suite("Streaming socket: pacing live changes")
struct DrainPacerTests {
    private static let linger = 5.0

    @Test(.timeLimit(.minutes(2))) func changesDuringALingerGoOutTogetherAndAQuietOneAtOnce() async throws {
        var limits = TestServer.testLimits
        limits.announcementLingerSeconds = Self.linger
        let server = try await TestServer.start(limits: limits)
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let sender = try await SocketTestClient.connect(to: server)
        let receiver = try await SocketTestClient.connect(to: server)
        defer { Task { await sender.close(); await receiver.close() } }
        try await sender.initialize(token: user.token, clientID: "sender")
        try await receiver.initialize(channel: 4, token: user.token, clientID: "receiver")

        func send(_ number: Int) async throws {
            try await sender.send(changeMessage(id: "paced", ccid: "s-\(number)", diff: addingDiff(["k\(number)": .integer(Int64(number))])))
        }
        func receive() async throws -> (ccids: [String], at: ContinuousClock.Instant) {
            let message = try #require(await receiver.next(startingWith: "4:c:", timeout: .seconds(30)))
            let changes = try #require(try JSONValue(parsing: String(message.dropFirst(4))).arrayValue)
            return (changes.compactMap { $0["ccids"]?.arrayValue?.first?.stringValue }, .now)
        }

        // The receiver's event loop has written no change yet: the first goes out at once.
        let sentFirst = ContinuousClock.now
        try await send(0)
        let first = try await receive()
        #expect(first.ccids == ["s-0"])

        // Committed within the linger that the first one's write began, the next two wait for
        // its end and go out in one frame. (The first's write began after it was sent: timed
        // from there, the bound holds however late a loaded machine reads the frames.)
        try await send(1)
        try await send(2)
        let second = try await receive()
        #expect(second.ccids == ["s-1", "s-2"])
        #expect(second.at - sentFirst > .seconds(Self.linger - 0.1), "the paced changes came \(second.at - sentFirst) after the first was sent")

        // A linger after the last write, a change is not held.
        try await Task.sleep(for: .seconds(Self.linger + 0.5))
        let sent = ContinuousClock.now
        try await send(3)
        let third = try await receive()
        #expect(third.ccids == ["s-3"])
        #expect(third.at - sent < .seconds(Self.linger - 0.5), "a change after a quiet spell took \(third.at - sent)")
    }
}
