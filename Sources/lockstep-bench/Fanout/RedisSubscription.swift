import CommandLineSupport
import NIOCore
import NIOPosix

/// One subscriber of redis-server, as a fan-out benchmark's child process runs it: a plain TCP
/// connection that sent `SUBSCRIBE <channel>`, whose messages are timed into its tally. Redis
/// closes a subscriber that falls behind (its `client-output-buffer-limit pubsub`) without a
/// word: the tally records the connection's end.
enum RedisSubscription {
    /// Connects and returns once Redis confirmed the subscription.
    static func open(port: Int, channel name: String, tally: SubscriptionTally) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let subscribed = group.next().makePromise(of: Void.self)
        let bootstrap = ClientBootstrap(group: group).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RESPDecoder()))
                try channel.pipeline.syncOperations.addHandler(Handler(tally: tally, subscribed: subscribed))
            }
        }
        let channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
        var command = channel.allocator.buffer(capacity: 64)
        RESP.command(["SUBSCRIBE", name], into: &command)
        try await channel.writeAndFlush(command).get()
        try await subscribed.futureResult.get()
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = RESPValue

        private let tally: SubscriptionTally
        private var subscribed: EventLoopPromise<Void>?

        init(tally: SubscriptionTally, subscribed: EventLoopPromise<Void>) {
            self.tally = tally
            self.subscribed = subscribed
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let now = WallClock.now()
            // A message is ["message", channel, payload]; the confirmation ["subscribe", channel, count].
            guard case .array(let parts?) = unwrapInboundIn(data), parts.count == 3 else { return }
            switch (parts[0].text, parts[2]) {
            case ("message", .bulk(let payload?)):
                tally.record(stamps: payload.withUnsafeReadableBytes { SentAt.stamps(in: $0) }, at: now)
            case ("subscribe", _):
                subscribed?.succeed(())
                subscribed = nil
            default:
                break
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            tally.end("redis-server closed the connection")
            subscribed?.fail(CommandError("redis-server closed a subscriber's connection before confirming it"))
            subscribed = nil
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            tally.end("failed: \(error)")
            subscribed?.fail(error)
            subscribed = nil
            context.close(promise: nil)
        }
    }
}
