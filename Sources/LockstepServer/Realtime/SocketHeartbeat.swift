import LockstepCore
import NIOCore
import NIOWebSocket
import Synchronization

/// Whether a streaming peer is alive, judged by when its bytes last arrived, or when the server
/// last finished one of its messages, whichever is later.
///
/// Arrivals are noted by a handler at the head of the socket's channel pipeline, on its event
/// loop, as the kernel hands bytes over: not when the server's tasks get round to a frame. Any
/// bytes count, a pong or a change alike. A peer that waits for the answers to what it sent
/// is not silent either: its silence counts from the server's last answer. So a pong behind
/// pipelined changes, or a server whose cooperative pool is busy for a few seconds, never
/// makes a live peer look dead.
///
/// The server pings a peer that went quiet (``pingAfter``) so that a live one always has
/// something to answer, and closes the connection when nothing at all came for the heartbeat
/// timeout: a pong has at least half the timeout to arrive.
final class SocketHeartbeat: Sendable {
    /// The heartbeat timeout: a peer silent this long is gone.
    let timeout: Duration
    private let lastRead: Atomic<UInt64>
    private let lastPing = Atomic<UInt64>(0)

    init(timeout: Duration, heardAt: NIODeadline = .now()) {
        self.timeout = timeout
        self.lastRead = Atomic(heardAt.uptimeNanoseconds)
    }

    /// How long the peer must stay quiet before it is pinged.
    var pingAfter: Duration { timeout / 4 }

    /// How often the connection checks on its peer at least (``check(now:)``): as often as it
    /// may need pinging.
    var checkEvery: Duration { pingAfter }

    /// The moment the peer's silence passes the timeout, unless it is heard from before: when
    /// the connection checks on it once more, so that it goes on time.
    var silentPast: NIODeadline {
        NIODeadline.uptimeNanoseconds(lastRead.load(ordering: .acquiring) &+ UInt64(timeout.nanoseconds) &+ 1)
    }

    /// Starts recording the arrival of the peer's bytes, at the head of the socket's `pipeline`.
    func listen(on pipeline: ChannelPipeline.SynchronousOperations) throws {
        try pipeline.addHandler(ArrivalRecorder(heartbeat: self), position: .first)
    }

    /// What to do now: nothing, ping the peer, or give up on it.
    func check(now: NIODeadline = .now()) -> Verdict {
        let silence = now.uptimeNanoseconds &- lastRead.load(ordering: .acquiring)
        if silence > UInt64(timeout.nanoseconds) { return .silent(.nanoseconds(Int64(silence))) }
        guard silence >= UInt64(pingAfter.nanoseconds) else { return .alive }
        // One ping per quiet spell: a peer that answers resets the silence, and the next spell
        // gets the next ping.
        let pinged = lastPing.load(ordering: .relaxed)
        guard pinged < lastRead.load(ordering: .acquiring) else { return .alive }
        lastPing.store(now.uptimeNanoseconds, ordering: .relaxed)
        return .ping
    }

    enum Verdict: Equatable {
        case alive
        case ping
        /// Nothing came from the peer for this long.
        case silent(Duration)
    }

    /// The server finished one of the peer's messages.
    func attended() {
        heardFrom()
    }

    /// The server itself could not run for `stall` (its watch woke that late): that much of
    /// the peer's silence is not counted, since its answer may be waiting on this server's
    /// tasks too (a test's client in the same process). A server stalled on every tick still
    /// counts the time it ran, so a dead peer goes in the end.
    func forgive(_ stall: Duration, now: NIODeadline = .now()) {
        let now = now.uptimeNanoseconds
        let forgiven = UInt64(max(0, stall.nanoseconds))
        var last = lastRead.load(ordering: .acquiring)
        while true {
            let moved = min(now, last &+ forgiven)
            guard moved > last else { return }
            let (exchanged, original) = lastRead.compareExchange(expected: last, desired: moved, ordering: .acquiringAndReleasing)
            if exchanged { return }
            last = original
        }
    }

    fileprivate func heardFrom() {
        lastRead.store(NIODeadline.now().uptimeNanoseconds, ordering: .releasing)
    }

    /// Notes each read and passes it on unchanged.
    private final class ArrivalRecorder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let heartbeat: SocketHeartbeat

        init(heartbeat: SocketHeartbeat) { self.heartbeat = heartbeat }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            heartbeat.heardFrom()
            context.fireChannelRead(data)
        }
    }
}
