import Foundation
import LockstepServer
import Testing

/// The WebSocket layer of streaming connections, spoken byte by byte from a raw TCP socket:
/// what the server's frame reader (``SocketFrameReader``) must do with fragments, control
/// frames, binary messages and frames that break the protocol (RFC 6455).
@Suite("Streaming socket: WebSocket frames")
struct SocketFramesTests {
    @Test func fragmentsMakeOneMessage() async throws {
        let (server, socket) = try await Self.upgradedSocket()
        defer { Task { await server.stop() } }
        socket.send(bytes: Self.frame(.text, "h", fin: false) + Self.frame(.continuation, ":4", fin: false) + Self.frame(.continuation, "1"))
        let reply = try await Self.frames(from: socket) { $0.contains { $0.opcode == .text } }
        #expect(reply.frames.first { $0.opcode == .text }?.text == "h:42")
    }

    @Test func aPingIsAnsweredWithItsPayloadAndTheConnectionGoesOn() async throws {
        let (server, socket) = try await Self.upgradedSocket()
        defer { Task { await server.stop() } }
        socket.send(bytes: Self.frame(.ping, "are you there"))
        let pong = try await Self.frames(from: socket) { $0.contains { $0.opcode == .pong } }
        #expect(pong.frames.first { $0.opcode == .pong }?.text == "are you there")
        socket.send(bytes: Self.frame(.text, "h:1"))
        let reply = try await Self.frames(from: socket) { $0.contains { $0.opcode == .text } }
        #expect(reply.frames.first { $0.opcode == .text }?.text == "h:2")
    }

    @Test func aBinaryMessageIsAnsweredWithAnError() async throws {
        let (server, socket) = try await Self.upgradedSocket()
        defer { Task { await server.stop() } }
        socket.send(bytes: Self.frame(.binary, "h:1"))
        let reply = try await Self.frames(from: socket) { $0.contains { $0.opcode == .text } }
        let text = try #require(reply.frames.first { $0.opcode == .text }?.text)
        #expect(text.contains("400") && text.contains("binary messages are not part of the protocol"), "\(text)")
    }

    @Test func theClientsCloseIsAnsweredWithItsCodeAndTheSocketCloses() async throws {
        let (server, socket) = try await Self.upgradedSocket()
        defer { Task { await server.stop() } }
        socket.send(bytes: Self.frame(.close, bytes: [0x03, 0xE8]))  // 1000
        let reply = try await Self.frames(from: socket) { _ in false }
        #expect(reply.closed, "the last bytes came \(reply.after) after the close was sent, and the socket stayed open")
        #expect(reply.frames.first { $0.opcode == .close }?.payload == [0x03, 0xE8])
    }

    @Test func aContinuationWithNothingToContinueClosesWithAProtocolError() async throws {
        let (server, socket) = try await Self.upgradedSocket()
        defer { Task { await server.stop() } }
        socket.send(bytes: Self.frame(.continuation, "h:1"))
        let reply = try await Self.frames(from: socket) { _ in false }
        #expect(reply.closed, "the last bytes came \(reply.after) after the frame was sent, and the socket stayed open")
        #expect(reply.frames.first { $0.opcode == .close }?.payload == [0x03, 0xEA])  // 1002
        #expect(!reply.frames.contains { $0.opcode == .text }, "the message was not acted on")
    }

    /// The server's channels allow half-closure, so a peer's FIN alone closes nothing: the
    /// connection must end at once all the same, not when the heartbeat finds it silent.
    @Test func aPeerThatClosesItsSocketWithoutAWordEndsItsConnectionAtOnce() async throws {
        // A heartbeat slower than the test: only the FIN can end the connection in time.
        var limits = TestServer.testLimits
        limits.heartbeatTimeoutSeconds = 120
        let (server, socket) = try await Self.upgradedSocket(limits: limits)
        defer { Task { await server.stop() } }
        let events = ConnectionEvents(server)
        try await waitUntil { server.services.connections.count == 1 }
        let stalls = PoolStallProbe()
        socket.close()
        // 20 s, and as long again as the pool could run nothing (the in-process server neither),
        // counting the stalls that come while it waits too: a deadline extended once by the
        // stalls so far was missed in a run whose pool stayed stalled through the extension.
        let closed = ContinuousClock.now
        var end: SocketConnectionEnd?
        while end == nil {
            let left = .seconds(20) + stalls.stalledSoFar - (ContinuousClock.now - closed)
            guard left > .zero else { break }
            end = await events.ends.next(timeout: min(left, .seconds(1))) { _ in true }
        }
        let stalled = Duration.nanoseconds(stalls.stop())
        #expect(
            end?.reason == .ended,
            "the connection is still open after 20 s and the pool's \(stalled) of stalls; the heartbeat's first ping is due at 30 s")
    }

    @Test func anUpgradeToAnotherPathOrAnUnknownAppIsRefused() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        for path in ["/sock/1/no-such-app/websocket", "/sock/1/\(server.appID)/other", "/sock/2/\(server.appID)/websocket"] {
            let socket = try RawConnection.open(port: server.port)
            socket.send(Self.upgradeRequest(path: path))
            let (text, closed, _) = try await socket.receiveUntilClosed(within: .seconds(10))
            #expect(httpStatus(text) == 400 && closed, "\(path): \(text.prefix(200))")
        }
    }

    @Test func anUpgradeAfterAnotherRequestIsRedirectedToANewConnection() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let socket = try RawConnection.open(port: server.port)
        socket.send("GET /health HTTP/1.1\r\nHost: lockstep\r\n\r\n")
        let (health, _, _) = try await socket.receive(until: "\"ok\"", within: .seconds(10))
        #expect(httpStatus(health) == 200)
        let path = "/sock/1/\(server.appID)/websocket"
        socket.send(Self.upgradeRequest(path: path))
        let (text, closed, _) = try await socket.receiveUntilClosed(within: .seconds(10))
        #expect(httpStatus(text) == 307 && closed, "\(text.prefix(300))")
        #expect(text.lowercased().contains("location: \(path.lowercased())"), "\(text.prefix(300))")
    }

    // MARK: Frames by hand

    enum Opcode: UInt8 {
        case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA
    }

    struct Frame {
        var opcode: Opcode?
        var payload: [UInt8]
        var text: String { String(decoding: payload, as: UTF8.self) }
    }

    static func upgradeRequest(path: String) -> String {
        "GET \(path) HTTP/1.1\r\nHost: lockstep\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    }

    /// A server and a raw socket upgraded on it (the `101` read).
    static func upgradedSocket(limits: Limits = TestServer.testLimits) async throws -> (TestServer, RawConnection) {
        let server = try await TestServer.start(limits: limits)
        let socket = try RawConnection.open(port: server.port)
        socket.send(upgradeRequest(path: "/sock/1/\(server.appID)/websocket"))
        let (text, _, _) = try await socket.receive(until: "\r\n\r\n", within: .seconds(10))
        #expect(httpStatus(text) == 101, "\(text)")
        #expect(text.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), "the accept key of RFC 6455's example")
        return (server, socket)
    }

    /// A client's frame: masked, as RFC 6455 requires of clients; payloads under 126 bytes.
    static func frame(_ opcode: Opcode, _ payload: String, fin: Bool = true) -> [UInt8] {
        frame(opcode, bytes: Array(payload.utf8), fin: fin)
    }

    static func frame(_ opcode: Opcode, bytes: [UInt8], fin: Bool = true) -> [UInt8] {
        precondition(bytes.count < 126)
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        return [(fin ? 0x80 : 0) | opcode.rawValue, 0x80 | UInt8(bytes.count)] + mask
            + bytes.enumerated().map { $1 ^ mask[$0 % 4] }
    }

    /// The server's frames until `isEnough` says so of them, or the socket closes (10 s at most,
    /// and as long again as the test process's pool stalls meanwhile); `after` is when the last
    /// bytes (or the close) came.
    static func frames(from socket: RawConnection, until isEnough: @escaping @Sendable ([Frame]) -> Bool) async throws
        -> (frames: [Frame], closed: Bool, after: Duration)
    {
        let stalls = PoolStallProbe()
        defer { _ = stalls.stop() }
        let (bytes, closed, after) = try await socket.receiveBytes(within: .seconds(10), allowingFor: stalls) { isEnough(parse($0)) }
        return (parse(bytes), closed, after)
    }

    /// Whole unmasked frames, as a server sends them.
    static func parse(_ bytes: [UInt8]) -> [Frame] {
        var frames: [Frame] = []
        var index = 0
        while index + 2 <= bytes.count {
            var length = Int(bytes[index + 1] & 0x7F)
            var start = index + 2
            if length == 126 {
                guard start + 2 <= bytes.count else { break }
                length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
                start += 2
            } else if length == 127 {
                guard start + 8 <= bytes.count else { break }
                length = bytes[start..<start + 8].reduce(0) { $0 << 8 | Int($1) }
                start += 8
            }
            guard start + length <= bytes.count else { break }
            frames.append(Frame(opcode: Opcode(rawValue: bytes[index] & 0x0F), payload: Array(bytes[start..<start + length])))
            index = start + length
        }
        return frames
    }
}
