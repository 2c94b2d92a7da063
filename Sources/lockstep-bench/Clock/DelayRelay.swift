import NIOCore
import NIOPosix

/// A TCP relay on 127.0.0.1 that plays a slow network between clients and a target server,
/// for machines without a kernel network emulator (`tc netem`).
///
/// Each message (data that one side writes in one go) waits one delay, drawn from the link's
/// model for its direction, before it is passed on; a direction never reorders, as TCP would
/// not, so a message drawn shorter than the one ahead of it leaves right after it.
///
/// Connecting to the relay takes no time (it is on this machine), so the relay charges the
/// handshake to the client's first message instead: that waits a round trip more (a SYN up and
/// a SYN-ACK down, drawn from the link), as a client's first bytes do on a real network, where
/// they cannot leave before the handshake is done.
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

    /// Starts relaying connections made to 127.0.0.1 on `port` (a free one by default) to
    /// 127.0.0.1 on `targetPort`.
    static func start(
        targetPort: Int, link: LinkModel, listeningOn port: Int = 0, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
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
                        try inbound.pipeline.syncOperations.addHandler(
                            DelayingForwarder(to: outbound, delay: link.up, handshakeReply: link.down))
                        try outbound.pipeline.syncOperations.addHandler(DelayingForwarder(to: inbound, delay: link.down))
                    }
            }
            .bind(host: "127.0.0.1", port: port)
            .get()
        return DelayRelay(port: listener.localAddress?.port ?? 0, link: link, listener: listener)
    }

    /// Stops accepting connections; those open close when their clients hang up.
    func stop() async throws {
        try await listener.close()
    }
}

/// When each chunk of one direction leaves: when it arrived plus its message's delay, but never
/// before the chunk ahead of it, since a TCP connection delivers a direction's bytes in order.
///
/// A chunk is what one read delivers, and one message often arrives as several (an HTTP
/// server writes a response's head and body apart). Chunks that follow each other within
/// ``burstGap`` belong to one message and share its delay, as packets sent back to back share
/// one queue: drawn apart, a two-chunk message would wait the longer of two draws, and the
/// link would no longer play the model it names.
struct ReleaseSchedule {
    /// Chunks closer together than this (nanoseconds) are one message.
    static let burstGap: Int64 = 1_000_000

    /// When the latest chunk leaves (or left).
    private(set) var lastRelease: Int64 = .min
    private var lastArrival: Int64?
    private var messageDelay: Int64 = 0

    /// The release time of a chunk that arrived at `arrival`; `drawDelay` gives the delay
    /// (nanoseconds) when the chunk starts a new message.
    mutating func release(arrival: Int64, drawDelay: () -> Int64) -> Int64 {
        if let lastArrival, arrival - lastArrival <= Self.burstGap {
            // The same message: its delay stands.
        } else {
            messageDelay = drawDelay()
        }
        lastArrival = arrival
        lastRelease = max(arrival + messageDelay, lastRelease)
        return lastRelease
    }
}

/// Passes what one side of a relayed connection sends to the other side, late.
private final class DelayingForwarder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let partner: any Channel
    private let delay: OneWayDelay
    /// For the client's side until its first message: the direction the handshake's reply
    /// crosses, whose round trip that message also waits for.
    private var handshakeReply: OneWayDelay?
    private var random = SystemRandomNumberGenerator()
    private var schedule = ReleaseSchedule()
    /// What the current read cycle delivered so far: one chunk, one delay.
    private var chunk: ByteBuffer?

    init(to partner: any Channel, delay: OneWayDelay, handshakeReply: OneWayDelay? = nil) {
        self.partner = partner
        self.delay = delay
        self.handshakeReply = handshakeReply
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
        let release = schedule.release(arrival: Self.now()) { drawMessageDelay() }
        let partner = self.partner
        context.eventLoop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(release))) {
            partner.writeAndFlush(chunk, promise: nil)
        }
    }

    private func drawMessageDelay() -> Int64 {
        var total = delay.draw(using: &random)
        if let reply = handshakeReply {
            handshakeReply = nil
            total += delay.draw(using: &random) + reply.draw(using: &random)
        }
        return total
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
