import Foundation
import LockstepCore
@testable import LockstepServer
import NIOCore
import Testing

/// A long run of announcements queued behind each other for one channel goes out in one
/// `N:c:[…]` frame; a short one as the frames built for every subscriber.
@Suite("Streaming socket: coalescing announcements")
struct SocketOutboxTests {
    private static func change(_ id: String, padding: Int = 0) -> [UInt8] {
        Array(#"{"id":"\#(id)","pad":"\#(String(repeating: "x", count: padding))"}"#.utf8)
    }

    private static func announced(_ channel: Int, _ change: [UInt8]) -> SocketOutbox.Message {
        let text = SocketReply.changes(channel, [change])
        return .announcement(ChangeEncodingCache.Announcement(channel: channel, text: text, frames: [ServerFrame.framing(text)]))
    }

    private static func text(_ message: SocketOutbox.Message) -> String? {
        switch message {
        case .text(let buffer): String(buffer: buffer)
        case .announcement(let announcement): "single \(String(buffer: announcement.text))"
        case .clockReply, .ping: nil
        }
    }

    @Test func aLongRunOfAChannelsAnnouncementsSharesAFrame() {
        let long = SocketOutbox.mergedRunMinimum
        let batch: [SocketOutbox.Message] =
            (0..<long).map { Self.announced(1, Self.change("a\($0)")) }
            + [Self.announced(2, Self.change("c")), .text(ByteBuffer(string: "h:7"))]
            + (0..<long + 1).map { Self.announced(1, Self.change("d\($0)")) }
            + [.clockReply(clientSent: 1, serverReceived: 2)]
        let frames = SocketOutbox.frames(of: batch)
        func merged(_ prefix: String, _ count: Int) -> String {
            "1:c:[" + (0..<count).map { #"{"id":"\#(prefix)\#($0)","pad":""}"# }.joined(separator: ",") + "]"
        }
        #expect(frames.map(Self.text) == [
            merged("a", long),
            #"single 2:c:[{"id":"c","pad":""}]"#,
            "h:7",
            merged("d", long + 1),
            nil,
        ])
    }

    /// A few announcements in a row (what a paced drain holds) go out as the frames built once
    /// for every subscriber, not merged anew for each.
    @Test func aShortRunGoesOutAsItsAnnouncements() {
        let short = SocketOutbox.mergedRunMinimum - 1
        let batch: [SocketOutbox.Message] =
            (0..<short).map { Self.announced(1, Self.change("a\($0)")) } + [.text(ByteBuffer(string: "h:7")), Self.announced(1, Self.change("b"))]
        let frames = SocketOutbox.frames(of: batch)
        #expect(frames.map(Self.text) == (0..<short).map { #"single 1:c:[{"id":"a\#($0)","pad":""}]"# } + ["h:7", #"single 1:c:[{"id":"b","pad":""}]"#])
    }

    @Test func aMergedFrameStaysWithinItsSize() throws {
        let padding = SocketOutbox.coalescedBytes / 3
        let batch = (0..<10).map { Self.announced(0, Self.change("n\($0)", padding: padding)) }
        let frames = SocketOutbox.frames(of: batch)
        #expect(frames.count == 5)
        var ids: [String] = []
        for frame in frames {
            let text = try #require(Self.text(frame))
            #expect(text.utf8.count <= SocketOutbox.coalescedBytes + 16)
            if text.hasPrefix("0:c:") {
                let changes = try #require(try JSONValue(parsing: String(text.dropFirst(4))).arrayValue)
                ids += changes.compactMap { $0["id"]?.stringValue }
            }
        }
        #expect(ids == (0..<10).map { "n\($0)" })
    }

    /// A burst of changes sent without waiting reaches another connection complete, in order,
    /// each once, whatever frames the server packed them in.
    /// (In the full suite, where commits are slow, this once stalled part-way: the client's pong
    /// waited behind its queued changes and the server's ping closed it as dead. See
    /// `SocketLimitsTests.aClientWhoseChangesWaitIsNotTakenForDead`.)
    @Test(.timeLimit(.minutes(2))) func aBurstArrivesWholeAndInOrder() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let user = try await server.createUser()
        let sender = try await SocketTestClient.connect(to: server)
        let receiver = try await SocketTestClient.connect(to: server)
        defer { Task { await sender.close(); await receiver.close() } }
        try await sender.initialize(token: user.token, clientID: "sender")
        try await receiver.initialize(channel: 4, token: user.token, clientID: "receiver")

        let count = 120
        for number in 0..<count {
            try await sender.send(changeMessage(id: "n\(number % 7)", ccid: "s-\(number)", diff: addingDiff(["k": .integer(Int64(number))])))
        }
        var received: [JSONValue] = []
        var frames = 0
        while received.count < count, let message = await receiver.next(startingWith: "4:c:", timeout: .seconds(20)) {
            received += try #require(try JSONValue(parsing: String(message.dropFirst(4))).arrayValue)
            frames += 1
        }
        let ccids = received.compactMap { $0["ccids"]?.arrayValue?.first?.stringValue }
        #expect(ccids == (0..<count).map { "s-\($0)" }, "\(ccids.count) of \(count) changes arrived")
        print("a burst of \(count) changes: \(ccids.count) reached the other connection, in \(frames) frames")
    }
}
