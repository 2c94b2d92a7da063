import AsyncHTTPClient
import CommandLineSupport
import Foundation
import LockstepClient
import Logging
import WSClient

/// A streaming socket to a Lockstep server that carries nothing but clock exchanges: what an
/// SDK client's socket session does for its ``ServerClock`` while connected, without a bucket.
///
/// The socket is open before any exchange starts, as an app's session is when it re-syncs, so
/// its handshake is no exchange's business.
final class ClockSocket: Sendable {
    /// Exchanges over the socket (and over HTTP, through `fallback`, should it close).
    let transport: SocketClockExchangeTransport
    private let writer: WebSocketOutboundWriter
    private let running: Task<Void, any Error>

    private init(transport: SocketClockExchangeTransport, writer: WebSocketOutboundWriter, running: Task<Void, any Error>) {
        self.transport = transport
        self.writer = writer
        self.running = running
    }

    /// The app whose socket the benchmark opens (``EmbeddedServer`` has it).
    static let appID = "bench"

    /// Opens a socket to the server at `serverURL` (an `http:` base URL) for app `app`.
    static func open(serverURL: URL, app: String = appID, fallback: any ClockExchangeTransport) async throws -> ClockSocket {
        let transport = SocketClockExchangeTransport(fallback: fallback)
        let url = "ws://\(serverURL.host ?? "127.0.0.1"):\(serverURL.port ?? 80)/sock/1/\(app)/websocket"
        var logger = Logger(label: "lockstep-bench-clock-socket")
        logger.logLevel = .critical
        let (attached, attach) = AsyncStream.makeStream(of: WebSocketOutboundWriter.self)
        let running = Task {
            defer { attach.finish() }
            try await WebSocketClient.connect(url: url, configuration: WebSocketClientConfiguration(), logger: logger) {
                inbound, outbound, _ in
                let socket = transport.attach { try await outbound.write(.text($0)) }
                defer { transport.detach(socket) }
                attach.yield(outbound)
                for try await message in inbound.messages(maxSize: 1 << 16) {
                    if case .text(let text) = message { _ = transport.receive(text) }
                }
            }
        }
        for await writer in attached { return ClockSocket(transport: transport, writer: writer, running: running) }
        try await running.value
        throw CommandError("the clock socket to \(url) closed before it opened")
    }

    /// Closes the socket with a close frame (the server answers, and the reading loop ends).
    func close() async {
        try? await writer.close(.normalClosure, reason: nil)
        _ = await running.result
    }
}
