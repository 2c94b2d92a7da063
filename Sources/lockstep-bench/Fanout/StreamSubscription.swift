import CommandLineSupport
import Foundation
import NIOCore
import NIOPosix

/// One subscriber of a Lockstep server, as a fan-out benchmark's child process runs it: a plain
/// TCP connection that upgraded to a WebSocket and opened channel 0 on the shared bucket, whose
/// announcements are timed into its tally.
///
/// It reads frames in a channel handler on its event loop, as the Redis subscriber reads RESP
/// (``RedisSubscription``), so that both servers are measured with the same generator: what a
/// subscriber spends reading is CPU the server under test does not get, and a heavier client
/// for one server would count against that server's latency. It answers the server's pings,
/// which is all an idle client has to do to stay connected.
enum StreamSubscription {
    /// Connects and returns once the server authorized the channel; when the connection ends,
    /// `tally` records why.
    static func open(url: String, token: String, bucket: String, clientID: String, tally: SubscriptionTally) async throws {
        guard let components = URLComponents(string: url), let host = components.host, let port = components.port else {
            throw CommandError("a Lockstep subscriber needs a ws://host:port/… URL, not \(url)")
        }
        let group = MultiThreadedEventLoopGroup.singleton
        let authorized = group.next().makePromise(of: Void.self)
        let initialization = FanoutRound.subscription(bucket: bucket, token: token, clientID: clientID)
        let bootstrap = ClientBootstrap(group: group).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(ServerFrameDecoder()))
                try channel.pipeline.syncOperations.addHandler(Handler(initialization: initialization, tally: tally, authorized: authorized))
            }
        }
        let channel = try await bootstrap.connect(host: host, port: port).get()
        let upgrade = """
            GET \(components.percentEncodedPath) HTTP/1.1\r
            Host: \(host):\(port)\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: bG9ja3N0ZXAtYmVuY2gtMQ==\r
            Sec-WebSocket-Version: 13\r
            \r\n
            """
        try await channel.writeAndFlush(channel.allocator.buffer(string: upgrade)).get()
        try await authorized.futureResult.get()
    }

    /// What the server sends, read off the socket: its answer to the upgrade, then each message.
    enum Inbound {
        case upgraded(status: Substring)
        case text(ByteBuffer)
        case ping(ByteBuffer)
        case close
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = Inbound
        typealias OutboundOut = ByteBuffer

        private let initialization: String
        private let tally: SubscriptionTally
        private var authorized: EventLoopPromise<Void>?

        init(initialization: String, tally: SubscriptionTally, authorized: EventLoopPromise<Void>) {
            self.initialization = initialization
            self.tally = tally
            self.authorized = authorized
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let now = WallClock.now()
            switch unwrapInboundIn(data) {
            case .upgraded(let status):
                guard status == "101" else { return fail(context, "the server refused the upgrade: HTTP \(status)") }
                context.writeAndFlush(wrapOutboundOut(ClientFrame.masked(Array(initialization.utf8), opcode: 0x1)), promise: nil)
            case .text(let text):
                text.withUnsafeReadableBytes { bytes in
                    if bytes.starts(with: Self.changes) {
                        tally.record(stamps: SentAt.stamps(in: bytes), at: now)
                    } else if bytes.starts(with: Self.authorization) {
                        if bytes.count > Self.authorization.count, bytes[Self.authorization.count] == UInt8(ascii: "{") {
                            fail(context, "the server refused the subscriber: \(String(buffer: text))")
                        } else {
                            authorized?.succeed(())
                            authorized = nil
                        }
                    }
                }
            case .ping(let payload):
                context.writeAndFlush(wrapOutboundOut(ClientFrame.masked(Array(buffer: payload), opcode: 0xA)), promise: nil)
            case .close:
                tally.end("the server closed the socket")
                context.close(promise: nil)
            }
        }

        private static let changes = Array("0:c:[".utf8)
        private static let authorization = Array("0:auth:".utf8)

        private func fail(_ context: ChannelHandlerContext, _ message: String) {
            tally.end(message)
            authorized?.fail(CommandError(message))
            authorized = nil
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            tally.end("the server closed the connection")
            authorized?.fail(CommandError("the server closed a subscriber's connection before authorizing it"))
            authorized = nil
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            fail(context, "failed: \(error)")
        }
    }
}
