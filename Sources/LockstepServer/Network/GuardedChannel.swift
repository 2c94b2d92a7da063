import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// The server's child channel (HTTP/1.1 with WebSocket upgrades) with the connection
/// defenses around it: the per-address cap (``ConnectionLimiter``), applied as each
/// connection is accepted, and the request deadlines and parser refusals (``RequestGuard``);
/// and, when the server has a timed store, release windows and keys answered on the event loop
/// (``ReleaseFastPath``).
struct GuardedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let connections: ConnectionLimiter
    let limits: Limits
    let releases: ReleaseService?
    /// Pages of other origins may read release windows too (see ``ReleaseFastPath``).
    let origins: OriginPolicy

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress.flatMap(IPAddress.init)
        guard connections.admit(address) else {
            logger.debug("refusing a connection: \(address?.description ?? "?") has \(connections.maximumPerAddress) open already")
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(TooManyConnections())
        }
        channel.closeFuture.whenComplete { [connections] _ in connections.release(address) }
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { [limits, releases, origins] value in
            // The inner setup built the HTTP pipeline synchronously, before any byte was read.
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let requestGuard = RequestGuard(limits: limits)
            try channel.pipeline.syncOperations.addHandler(requestGuard.watcher, position: .before(decoder))
            try channel.pipeline.syncOperations.addHandler(requestGuard, position: .after(decoder))
            let fileBodyWriter = FileBodyWriter()
            try channel.pipeline.syncOperations.addHandler(fileBodyWriter, position: .after(requestGuard))
            if let releases {
                try channel.pipeline.syncOperations.addHandler(ReleaseFastPath(releases: releases, origins: origins), position: .after(fileBodyWriter))
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }

    struct TooManyConnections: Error {}
}
