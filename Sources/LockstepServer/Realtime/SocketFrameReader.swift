import NIOCore
import NIOWebSocket

/// Reads one streaming connection's WebSocket frames on its event loop: answers pings and
/// closes at once, assembles fragmented messages up to ``messageLimit`` bytes, and hands each
/// whole message to its ``SocketConnection``.
///
/// While the connection's inbox is full it reads nothing more (the channel's `autoRead` is off
/// until the inbox makes room), so a client that sends faster than the server handles is slowed
/// by TCP, and the server's memory stays bounded.
final class SocketFrameReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let connection: SocketConnection
    /// The longest message the server reads; a longer one closes the socket with 1009.
    let messageLimit: Int
    /// A message whose first fragments arrived, and its opcode.
    private var partial: (opcode: WebSocketOpcode, data: ByteBuffer)?
    /// Whether this side has sent its close frame: nothing more is read.
    private var isClosing = false

    init(connection: SocketConnection, messageLimit: Int) {
        self.connection = connection
        self.messageLimit = messageLimit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard !isClosing else {
            // The close handshake this side started is over: the socket closes now, not at the deadline.
            if frame.opcode == .connectionClose { context.close(promise: nil) }
            return
        }
        switch frame.opcode {
        case .ping:
            guard frame.fin else { return close(context, code: .protocolError) }
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            // The heartbeat counts every byte that arrives (``SocketHeartbeat``).
            break
        case .connectionClose:
            var data = frame.unmaskedData
            close(context, code: data.readWebSocketErrorCode() ?? .normalClosure)
        case .text, .binary:
            guard partial == nil else { return close(context, code: .protocolError) }
            guard frame.length <= messageLimit else { return close(context, code: .messageTooLarge) }
            if frame.fin {
                deliver(frame.opcode, frame.unmaskedData, context: context)
            } else {
                partial = (frame.opcode, frame.unmaskedData)
            }
        case .continuation:
            guard let (opcode, first) = partial else { return close(context, code: .protocolError) }
            var data = first
            guard data.readableBytes + frame.length <= messageLimit else { return close(context, code: .messageTooLarge) }
            partial = nil
            var more = frame.unmaskedData
            data.writeBuffer(&more)
            if frame.fin {
                deliver(opcode, data, context: context)
            } else {
                partial = (opcode, data)
            }
        default:
            close(context, code: .protocolError)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.socketEnded()
        context.fireChannelInactive()
    }

    /// The server is stopping (Hummingbird quiesces every connection it accepted and waits for
    /// them to close): the socket closes with 1001, going away, and the client reconnects
    /// elsewhere. As RFC 6455 has it, the server closes the TCP connection once the client has
    /// answered with its own close frame, or after ``closeHandshakeTimeout``: a peer that reads
    /// nothing must not hold the server up.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            // The server's channels allow half-closure (Hummingbird's HTTP needs it): a peer
            // that closed its side sends nothing more, and the connection ends now, not when
            // the heartbeat finds it silent.
            return context.close(promise: nil)
        }
        guard event is ChannelShouldQuiesceEvent else { return context.fireUserInboundEventTriggered(event) }
        close(context, code: .goingAway, awaitingTheAnswerFor: Self.closeHandshakeTimeout)
    }

    /// How long a stopping server waits for a client's answer to its close frame.
    static let closeHandshakeTimeout = TimeAmount.seconds(2)

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A malformed frame was answered by NIO's WebSocketProtocolErrorHandler, which closes
        // the socket; anything else ends it here.
        if !(error is NIOWebSocketError) { context.close(promise: nil) }
    }

    private func deliver(_ opcode: WebSocketOpcode, _ data: ByteBuffer, context: ChannelHandlerContext) {
        let input: SocketInput = opcode == .text ? .text(String(buffer: data)) : .binary(byteCount: data.readableBytes)
        if !connection.received(input) {
            _ = context.channel.setOption(ChannelOptions.autoRead, value: false)
        }
    }

    /// Sends a close frame with `code` (the peer's own, when it closed first), then closes the
    /// socket: once the frame is written, or, when this side starts the handshake with
    /// `awaitingTheAnswerFor`, once the peer answers (``channelRead(context:data:)``) or that
    /// long has passed.
    private func close(_ context: ChannelHandlerContext, code: WebSocketErrorCode, awaitingTheAnswerFor patience: TimeAmount? = nil) {
        guard !isClosing else { return }
        isClosing = true
        partial = nil
        let written = context.writeAndFlush(wrapOutboundOut(closeFrame(code, context: context)))
        let channel = context.channel
        if let patience {
            channel.eventLoop.scheduleTask(in: patience) { channel.close(promise: nil) }
        } else {
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func closeFrame(_ code: WebSocketErrorCode, context: ChannelHandlerContext) -> WebSocketFrame {
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }
}
