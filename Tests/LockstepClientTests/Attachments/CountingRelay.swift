import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay on 127.0.0.1 that counts the bytes clients send through it to the server (what
/// the server was sent, request lines and headers included, measured outside both) and can
/// hold the way up to a rate, as a slow uplink would, or damage one byte on its way up.
///
/// The relay reads from a side only once what it read before went out to the other, so a
/// slow link holds the sender back as TCP would, instead of piling bytes up in the relay.
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

    /// Relays to 127.0.0.1:`targetPort`; with `bytesPerSecondUp`, no faster than that toward it;
    /// with `corruptingUpByte`, the byte at that position of everything sent up (counted over
    /// every connection) arrives inverted.
    static func start(targetPort: Int, bytesPerSecondUp: Int? = nil, corruptingUpByte: Int? = nil) async throws -> CountingRelay {
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: targetPort)
        let counter = ByteCounter(corrupting: corruptingUpByte)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // One read at a time, each passed on before the next: never out of order.
            .childChannelOption(.autoRead, value: false)
            .childChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .channelOption(.autoRead, value: false)
                    .channelOption(.maxMessagesPerRead, value: 1)
                    .connect(to: target)
                    .flatMapThrowing { outbound in
                        try inbound.pipeline.syncOperations.addHandler(
                            Forwarder(to: outbound, counter: counter, bytesPerSecond: bytesPerSecondUp))
                        try outbound.pipeline.syncOperations.addHandler(Forwarder(to: inbound, counter: nil, bytesPerSecond: nil))
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
    let corrupting: Int?

    init(corrupting: Int?) {
        self.corrupting = corrupting
    }

    /// Counts `buffer` and returns it as it goes on (damaged, if it holds the byte to damage).
    func pass(_ buffer: ByteBuffer) -> ByteBuffer {
        let start = count.add(buffer.readableBytes, ordering: .relaxed).oldValue
        guard let corrupting, start <= corrupting, corrupting < start + buffer.readableBytes else { return buffer }
        var damaged = buffer
        let index = buffer.readerIndex + corrupting - start
        damaged.setInteger(~(buffer.getInteger(at: index, as: UInt8.self) ?? 0), at: index)
        return damaged
    }
}

/// Passes what one side reads to the other, at most `bytesPerSecond`, and reads again once
/// it went out.
private final class Forwarder: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    private let peer: any Channel
    private let counter: ByteCounter?
    private let bytesPerSecond: Int?

    init(to peer: any Channel, counter: ByteCounter?, bytesPerSecond: Int?) {
        self.peer = peer
        self.counter = counter
        self.bytesPerSecond = bytesPerSecond
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { context.read() }
    }

    func channelActive(context: ChannelHandlerContext) {
        context.read()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let (source, peer, counter) = (context.channel, peer, counter)
        let send: @Sendable () -> Void = {
            peer.writeAndFlush(counter?.pass(buffer) ?? buffer).whenComplete { result in
                if case .success = result { source.read() } else { source.close(promise: nil) }
            }
        }
        guard let bytesPerSecond else { return send() }
        context.eventLoop.scheduleTask(in: .nanoseconds(Int64(buffer.readableBytes) * 1_000_000_000 / Int64(bytesPerSecond)), send)
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
