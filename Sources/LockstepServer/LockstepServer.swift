public import Hummingbird
import HummingbirdCore
import ServiceLifecycle
public import Logging
public import NIOCore

/// Builds the Lockstep server: its routes over a ``LockstepServices``.
///
/// ```swift
/// let store = try SQLiteStore(path: "lockstep-data/lockstep.sqlite")
/// let services = LockstepServices(store: store, limits: Limits(), clock: ServerClockSource(), logger: logger)
/// let app = LockstepServer.application(services: services, host: "127.0.0.1", port: 8080)
/// try await app.runService()
/// ```
public enum LockstepServer {
    public static func router(services: LockstepServices) -> Router<LockstepRequestContext> {
        _ = LockstepMetrics.registry
        let router = Router(context: LockstepRequestContext.self)
        // Outermost: a preflight goes no further, and every answer to a listed origin's page
        // (a refusal by the rate limit too) carries its CORS headers.
        router.middlewares.add(CrossOriginMiddleware(policy: services.origins, accounts: services.accounts))
        router.middlewares.add(MetricsMiddleware())
        router.middlewares.add(LogRequestsMiddleware(.debug))
        router.middlewares.add(RateLimitMiddleware(
            limits: services.limits, trustedProxies: services.trustedProxies, accounts: services.accounts))
        if let folder = services.staticDirectory {
            router.middlewares.add(StaticSiteMiddleware(folder: folder, logger: services.logger))
        }
        OperationsRoutes(services: services).add(to: router)
        AuthRoutes(services: services).add(to: router)
        ObjectRoutes(services: services).add(to: router)
        HistoryRoutes(services: services).add(to: router)
        FeedRoutes(services: services).add(to: router)
        PeerKeyRoutes(services: services).add(to: router)
        ReleaseRoutes(services: services).add(to: router)
        SpaceRoutes(services: services).add(to: router)
        BlobRoutes(services: services).add(to: router)
        AdminRoutes(services: services).add(to: router)
        IdentityProviderRoutes(services: services).add(to: router)
        WebhookRoutes(services: services).add(to: router)
        ConsoleRoutes(files: .shared).add(to: router)
        SDKRoutes(files: .shared).add(to: router)
        return router
    }

    /// The server: HTTP/1.1 with WebSocket upgrades on `host:port`, each connection held to
    /// the limits of ``GuardedChannel``, with the services that run beside it.
    public static func application(
        services: LockstepServices, host: String, port: Int,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let connections = ConnectionLimiter(
            maximumPerAddress: services.limits.maximumConnectionsPerAddress, trustedProxies: services.trustedProxies)
        let limits = services.limits
        let server = HTTPServerBuilder { responder in
            GuardedChannel(
                inner: StreamingChannel(responder: responder, services: services),
                connections: connections, limits: limits, releases: services.releases, origins: services.origins)
        }
        var background: [any Service] = [
            services.presence, services.pruner, services.tokenWatch, StreamingShutdown(connections: services.connections),
            services.webhookDispatcher,
        ]
        if let blobs = services.blobs {
            background.append(BlobCollector(blobs: blobs, limits: limits, clock: services.clock, logger: services.logger))
        }
        return Application(
            router: router(services: services),
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "Lockstep"),
            services: background,
            onServerRunning: onServerRunning,
            logger: services.logger)
    }

    /// A listener that serves only `GET /metrics`, for ``MetricsAccess/onMainListener`` off:
    /// run it beside ``application(services:host:port:onServerRunning:)``, on an address
    /// that only the metrics scraper reaches.
    public static func metricsApplication(
        access: MetricsAccess, host: String, port: Int, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        _ = LockstepMetrics.registry
        let router = Router(context: BasicRequestContext.self)
        MetricsRoutes(access: access).add(to: router)
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "Lockstep metrics"),
            onServerRunning: onServerRunning, logger: logger)
    }
}
