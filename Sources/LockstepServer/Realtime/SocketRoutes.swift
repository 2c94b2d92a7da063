import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// `/sock/1/{app}/websocket`: the streaming protocol of Simperium clients, a raw RFC 6455
/// WebSocket carrying UTF-8 text messages, many bucket channels multiplexed on one socket.
enum SocketRoutes {
    /// The router the HTTP server consults when a request asks to upgrade to a WebSocket.
    static func router(services: LockstepServices) -> Router<SocketRequestContext> {
        let router = Router(context: SocketRequestContext.self)
        let encoding = ChangeEncodingCache()
        // Upgraded only for an app that exists; otherwise the client is answered 400 with
        // `Connection: close`, and holds no socket.
        let shouldUpgrade: @Sendable (Request, SocketRequestContext) async throws -> RouterShouldUpgrade = { _, context in
            guard try await services.store.app(id: try context.parameters.require("app")) != nil else { return .dontUpgrade }
            return .upgrade([:])
        }
        // What the server sends goes to the channel directly (``SocketOutbox``), not through
        // the library's writer: one flush per event-loop turn instead of a task hop per frame.
        router.ws("/sock/1/{app}/websocket", shouldUpgrade: shouldUpgrade) { inbound, _, context in
            let request = context.requestContext
            let peer = services.trustedProxies.client(
                peer: request.channel.remoteAddress.flatMap(IPAddress.init),
                forwardedFor: context.request.headers[values: .xForwardedFor])
            let info = services.connections.open(
                appID: try request.parameters.require("app"), remoteAddress: peer?.description, at: services.clock.now())
            let connection = SocketConnection(
                info: info, services: services, encoding: encoding, channel: request.channel, logger: context.logger)
            try await connection.run(inbound: inbound)
        }
        return router
    }

    /// WebSocket settings from the server's limits: frames up to what the server reads at all.
    /// The connection pings quiet peers itself (``SocketHeartbeat``): the WebSocket library's
    /// pings judge a peer by when the server's task reads the pong, which a busy server reads late.
    static func configuration(limits: Limits) -> WebSocketServerConfiguration {
        WebSocketServerConfiguration(maxFrameSize: max(limits.maximumFrameBytes, limits.maximumMessageBytes), autoPing: .disabled)
    }
}

/// The request context of WebSocket upgrades: Hummingbird's, plus the TCP channel, which the
/// server closes at once when a peer stops reading.
struct SocketRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        webSocket = WebSocketHandlerReference()
        channel = source.channel
    }
}
