import CommandLineSupport
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A streaming connection for a load generator that pipelines many changes: its messages are
/// framed before they are sent, and a run of frames goes out in one write and one flush.
///
/// `BenchSocket` (the WebSocket client every other benchmark uses) hops to the event loop, masks
/// and flushes once per message: 20,000 changes cost this process 6–9 µs each, on the cores the
/// server and its store run on. A device sending a backlog is another machine; here it should
/// cost as little as the raw baseline's rows, which are made before its clock too.
struct PipelinedSocket: Sendable {
    private let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    private let running: Task<Void, any Error>

    /// Text frames of `messages`, masked as a client's must be, ready for `send`.
    static func frames(_ messages: [String]) -> [WebSocketFrame] {
        messages.map { WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: $0)) }
    }

    /// Opens a socket to `path` on `host`:`port`, sends `initialization` (an `N:init:` message)
    /// and returns once the server authorized it; every later text message goes to `onMessage`,
    /// on the socket's reading task.
    static func open(
        host: String, port: Int, path: String, initialization: String, onMessage: @escaping @Sendable (String) -> Void
    ) async throws -> PipelinedSocket {
        let channel = try await connect(host: host, port: port, path: path)
        let (authorized, authorize) = AsyncStream.makeStream(of: NIOAsyncChannelOutboundWriter<WebSocketFrame>.self)
        let running = Task {
            defer { authorize.finish() }
            try await channel.executeThenClose { inbound, outbound in
                try await outbound.write(contentsOf: frames([initialization]))
                var unauthorized = true
                var text = ByteBuffer()
                for try await frame in inbound {
                    switch frame.opcode {
                    case .text, .continuation:
                        var data = frame.unmaskedData
                        text.writeBuffer(&data)
                        guard frame.fin else { continue }
                        let message = String(buffer: text)
                        text.clear()
                        if unauthorized, try BenchSocket.isAuthorization(message) {
                            unauthorized = false
                            authorize.yield(outbound)
                            authorize.finish()
                        } else {
                            onMessage(message)
                        }
                    case .ping:
                        try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData))
                    case .connectionClose:
                        return
                    default:
                        continue
                    }
                }
            }
        }
        for await outbound in authorized { return PipelinedSocket(outbound: outbound, running: running) }
        try await running.value
        throw CommandError("the bench client's socket closed before it was authorized")
    }

    /// Sends `frames` in runs of `perWrite`, each run one write and one flush.
    func send(_ frames: [WebSocketFrame], perWrite: Int) async throws {
        var start = 0
        while start < frames.count {
            let end = min(start + perWrite, frames.count)
            try await outbound.write(contentsOf: frames[start..<end])
            start = end
        }
    }

    /// Says goodbye with a close frame and waits for the server to close the connection.
    func close() async {
        var reason = ByteBuffer()
        reason.write(webSocketErrorCode: .normalClosure)
        try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: reason))
        _ = await running.result
    }

    private static func connect(host: String, port: Int, path: String) async throws -> NIOAsyncChannel<WebSocketFrame, WebSocketFrame> {
        let upgraded = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<NIOAsyncChannel<WebSocketFrame, WebSocketFrame>?>(maxFrameSize: 1 << 24) { channel, _ in
                        channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel(wrappingChannelSynchronously: channel) }
                    }
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "\(host):\(port)")
                    let upgrade = NIOTypedHTTPClientUpgradeConfiguration(
                        upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers),
                        upgraders: [upgrader], notUpgradingCompletionHandler: { $0.eventLoop.makeSucceededFuture(nil) })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgrade))
                }
            }
        guard let channel = try await upgraded.get() else { throw CommandError("the server did not upgrade \(path) to a WebSocket") }
        return channel
    }
}
