import LockstepCore
import NIOCore
import NIOPosix

/// The Redis baseline's writer: one connection sending `PUBLISH <channel> <change>` for each
/// change, the same JSON the Lockstep writer sends. Redis answers each with an integer (the
/// subscribers it reached) or an error, in order.
///
/// `storing`, each change is also kept, as Lockstep keeps it: a script sets it under a key of
/// its own and publishes it, one command and one answer, logged whole to the append-only file.
struct RedisPublisher: FanoutWriter {
    let answers: WriterAnswers
    private let connection: any Channel
    private let channel: String
    private let storing: Bool

    private static let storeAndPublish = "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('PUBLISH', KEYS[2], ARGV[1])"

    static func open(port: Int, channel: String, storing: Bool = false) async throws -> RedisPublisher {
        let answers = WriterAnswers()
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).channelInitializer { connection in
            connection.eventLoop.makeCompletedFuture {
                try connection.pipeline.syncOperations.addHandler(ByteToMessageHandler(RESPDecoder()))
                try connection.pipeline.syncOperations.addHandler(AnswerCounter(answers: answers))
            }
        }
        let connection = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
        return RedisPublisher(answers: answers, connection: connection, channel: channel, storing: storing)
    }

    func send(_ number: Int, sentAt: Int64) async throws {
        var command = connection.allocator.buffer(capacity: 256)
        let change = "\(SentAt.change(number, ccid: "\(channel)-\(number)", nanoseconds: sentAt))"
        let arguments = storing ? ["EVAL", Self.storeAndPublish, "2", "\(channel):\(number)", channel, change] : ["PUBLISH", channel, change]
        RESP.command(arguments, into: &command)
        try await connection.writeAndFlush(command).get()
    }

    func close() async {
        try? await connection.close()
    }

    private final class AnswerCounter: ChannelInboundHandler {
        typealias InboundIn = RESPValue

        private let answers: WriterAnswers

        init(answers: WriterAnswers) {
            self.answers = answers
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .error(let message): answers.refused(message)
            default: answers.accepted()
            }
        }
    }
}
