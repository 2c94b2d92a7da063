import NIOCore

/// Writes a streaming connection's outgoing frames, already encoded (``ServerFrame``), at the
/// head of its pipeline: past the WebSocket encoder and every other handler, so that a frame
/// shared by a thousand sockets costs each of them one write of the same bytes.
///
/// Used on the socket's event loop only, by its ``SocketOutbox``.
final class SocketFrameWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Writes `frame` without flushing; fails `promise` once the handler is gone.
    func write(_ frame: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(wrapOutboundOut(frame), promise: promise)
    }

    func flush() {
        context?.flush()
    }

    /// Bytes written to the channel that the kernel has not taken yet (they wait in NIO's
    /// buffer for the socket to take more); 0 once the channel is closed.
    var bufferedBytes: Int {
        guard let options = context?.channel.syncOptions else { return 0 }
        return (try? options.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
    }
}
