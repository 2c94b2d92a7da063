public import Hummingbird
public import NIOCore

/// The request context of Lockstep's HTTP routes: Hummingbird's, plus the connection's peer
/// address, which the rate limiter counts callers by (through ``TrustedProxies`` when the
/// peer is a proxy).
public struct LockstepRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
