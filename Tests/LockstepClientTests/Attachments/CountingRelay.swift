import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay on 127.0.0.1 that counts the bytes clients send through it to the server: what
/// the server was sent, measured outside both client and server (request lines and headers
/// included).
final class CountingRelay: Sendable {
    let port: Int
    private let listener: any Channel
    private let counter: ByteCounter

    var bytesUp: Int { counter.count.load(ordering: .relaxed) }

    private init(port: Int, listener: any Channel, counter: ByteCounter) {
        self.port = port
        self.listener = listener
        self.counter = counter
    }

    static func start(targetPort: Int) async throws -> CountingRelay {
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: targetPort)
        let counter = ByteCounter()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .channelOption(.autoRead, value: false)
                    .connect(to: target)
                    .flatMapThrowing { outbound in
                        try inbound.pipeline.syncOperations.addHandler(Forwarder(to: outbound, counter: counter))
                        try outbound.pipeline.syncOperations.addHandler(Forwarder(to: inbound, counter: nil))
                        inbound.read()
                        outbound.read()
                    }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return CountingRelay(port: listener.localAddress?.port ?? 0, listener: listener, counter: counter)
    }

    func stop() async {
        try? await listener.close()
    }
}

private final class ByteCounter: Sendable {
    let count = Atomic<Int>(0)
}

/// Passes what one side reads to the other, reading more only once the write went out (so a
/// slow server holds the client back, as it would directly).
private final class Forwarder: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    private let peer: any Channel
    private let counter: ByteCounter?

    init(to peer: any Channel, counter: ByteCounter?) {
        self.peer = peer
        self.counter = counter
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        counter?.count.add(buffer.readableBytes, ordering: .relaxed)
        let source = context.channel
        peer.writeAndFlush(buffer).whenComplete { result in
            if case .success = result { source.read() } else { source.close(promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
