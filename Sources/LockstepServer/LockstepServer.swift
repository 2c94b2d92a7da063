public import Hummingbird
import HummingbirdWebSocket
import Logging
public import NIOCore

/// Builds the Lockstep server: its routes over a ``LockstepServices``.
///
/// ```swift
/// let store = try SQLiteStore(path: "lockstep.sqlite")
/// let services = LockstepServices(store: store, limits: Limits(), clock: ServerClockSource(), logger: logger)
/// let app = LockstepServer.application(services: services, host: "127.0.0.1", port: 8080)
/// try await app.runService()
/// ```
public enum LockstepServer {
    public static func router(services: LockstepServices) -> Router<BasicRequestContext> {
        _ = LockstepMetrics.registry
        let router = Router(context: BasicRequestContext.self)
        router.middlewares.add(MetricsMiddleware())
        router.middlewares.add(LogRequestsMiddleware(.debug))
        router.middlewares.add(RateLimitMiddleware(limiter: RateLimiter(ratePerSecond: services.limits.httpRequestsPerSecond)))
        OperationsRoutes(services: services).add(to: router)
        AuthRoutes(services: services).add(to: router)
        ObjectRoutes(services: services).add(to: router)
        FeedRoutes(services: services).add(to: router)
        PeerKeyRoutes(services: services).add(to: router)
        ReleaseRoutes(services: services).add(to: router)
        return router
    }

    public static func application(
        services: LockstepServices, host: String, port: Int,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(services: services),
            server: .http1WebSocketUpgrade(
                webSocketRouter: SocketRoutes.router(services: services),
                configuration: .init(ws: SocketRoutes.configuration(limits: services.limits))),
            configuration: .init(address: .hostname(host, port: port), serverName: "Lockstep"),
            services: [services.presence, services.pruner],
            onServerRunning: onServerRunning,
            logger: services.logger)
    }
}
