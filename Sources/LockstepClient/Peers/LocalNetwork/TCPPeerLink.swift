import NIOCore

/// A peer link over one TCP connection, with length-prefixed messages.
final class TCPPeerLink: PeerLink {
    let isInitiator: Bool
    let incoming: AsyncThrowingStream<[UInt8], any Error>
    private let channel: any Channel

    init(channel: any Channel, isInitiator: Bool, incoming: AsyncThrowingStream<[UInt8], any Error>) {
        self.channel = channel
        self.isInitiator = isInitiator
        self.incoming = incoming
    }

    func send(_ message: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: message)).get()
    }

    func close() {
        channel.close(promise: nil)
    }

    /// Sets up a connection's pipeline: framing, then every message into `messages`.
    static func configure(
        _ channel: any Channel, maximumFrameBytes: Int, into messages: AsyncThrowingStream<[UInt8], any Error>.Continuation
    ) throws {
        try channel.pipeline.syncOperations.addHandlers([
            ByteToMessageHandler(LengthPrefixedFrameDecoder(maximumFrameBytes: maximumFrameBytes)),
            MessageToByteHandler(LengthPrefixedFrameEncoder()),
            MessageForwarder(continuation: messages),
        ])
    }
}

/// Hands each whole message to the link's stream, and ends the stream when the connection does.
private final class MessageForwarder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation

    init(continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(Array(Self.unwrapInboundIn(data).readableBytesView))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}
