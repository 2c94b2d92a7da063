import LockstepCore
import NIOCore
import NIOPosix

/// The Redis baseline's writer: one connection sending `PUBLISH <channel> <change>` for each
/// change, the same JSON the Lockstep writer sends. Redis answers each with an integer (the
/// subscribers it reached) or an error, in order.
struct RedisPublisher: FanoutWriter {
    let answers: WriterAnswers
    private let connection: any Channel
    private let channel: String

    static func open(port: Int, channel: String) async throws -> RedisPublisher {
        let answers = WriterAnswers()
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).channelInitializer { connection in
            connection.eventLoop.makeCompletedFuture {
                try connection.pipeline.syncOperations.addHandler(ByteToMessageHandler(RESPDecoder()))
                try connection.pipeline.syncOperations.addHandler(AnswerCounter(answers: answers))
            }
        }
        let connection = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
        return RedisPublisher(answers: answers, connection: connection, channel: channel)
    }

    func send(_ number: Int, sentAt: Int64) async throws {
        var command = connection.allocator.buffer(capacity: 256)
        RESP.command(["PUBLISH", channel, "\(SentAt.change(number, ccid: "\(channel)-\(number)", nanoseconds: sentAt))"], into: &command)
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
