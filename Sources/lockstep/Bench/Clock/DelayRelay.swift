import NIOCore
import NIOPosix

/// A TCP relay on 127.0.0.1 that plays a slow network between clients and a target server,
/// for machines without a kernel network emulator (`tc netem`).
///
/// Each chunk of data (what one read delivers) waits its own delay, drawn from the link's
/// model for its direction, before it is passed on; a direction never reorders, as TCP would
/// not, so a chunk drawn shorter than the one ahead of it leaves right after it. Connection
/// setup is not delayed: only what crosses an established connection is.
///
/// ```swift
/// let relay = try await DelayRelay.start(targetPort: 8080, link: .bufferbloat)
/// // talk to http://127.0.0.1:\(relay.port) …
/// try await relay.stop()
/// ```
final class DelayRelay: Sendable {
    /// The port the relay listens on.
    let port: Int
    let link: LinkModel
    private let listener: any Channel

    private init(port: Int, link: LinkModel, listener: any Channel) {
        self.port = port
        self.link = link
        self.listener = listener
    }

    /// Starts relaying connections made to 127.0.0.1 on a free port to 127.0.0.1 on `targetPort`.
    static func start(
        targetPort: Int, link: LinkModel, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> DelayRelay {
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: targetPort)
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { inbound in
                // Reads start once this future completes, so nothing arrives before both
                // directions are wired up.
                ClientBootstrap(group: inbound.eventLoop)
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .connect(to: target)
                    .flatMapThrowing { outbound in
                        try inbound.pipeline.syncOperations.addHandler(DelayingForwarder(to: outbound, delay: link.up))
                        try outbound.pipeline.syncOperations.addHandler(DelayingForwarder(to: inbound, delay: link.down))
                    }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return DelayRelay(port: listener.localAddress?.port ?? 0, link: link, listener: listener)
    }

    /// Stops accepting connections; those open close when their clients hang up.
    func stop() async throws {
        try await listener.close()
    }
}

/// When each chunk of one direction leaves: when it arrived plus its own delay, but never
/// before the chunk ahead of it, since a TCP connection delivers a direction's bytes in order.
struct ReleaseSchedule {
    /// When the latest chunk leaves (or left).
    private(set) var lastRelease: Int64 = .min

    /// The release time of a chunk that arrived at `arrival` and drew `delay` (nanoseconds).
    mutating func release(arrival: Int64, delay: Int64) -> Int64 {
        lastRelease = max(arrival + delay, lastRelease)
        return lastRelease
    }
}

/// Passes what one side of a relayed connection sends to the other side, late.
private final class DelayingForwarder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let partner: any Channel
    private let delay: OneWayDelay
    private var random = SystemRandomNumberGenerator()
    private var schedule = ReleaseSchedule()
    /// What the current read cycle delivered so far: one chunk, one delay.
    private var chunk: ByteBuffer?

    init(to partner: any Channel, delay: OneWayDelay) {
        self.partner = partner
        self.delay = delay
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if chunk == nil {
            chunk = bytes
        } else {
            chunk?.writeBuffer(&bytes)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard let chunk else { return }
        self.chunk = nil
        let release = schedule.release(arrival: Self.now(), delay: delay.draw(using: &random))
        let partner = self.partner
        context.eventLoop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(release))) {
            partner.writeAndFlush(chunk, promise: nil)
        }
    }

    /// One side hung up: hang up the other once what is still on its way has been delivered.
    func channelInactive(context: ChannelHandlerContext) {
        let partner = self.partner
        let release = max(schedule.lastRelease, Self.now())
        context.eventLoop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(release))) {
            partner.close(promise: nil)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// NIO's scheduling clock, in nanoseconds.
    private static func now() -> Int64 {
        Int64(NIODeadline.now().uptimeNanoseconds)
    }
}
