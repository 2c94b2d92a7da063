import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepServer
import Logging
import ServiceLifecycle

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Lockstep server.",
        discussion: """
            Stores everything in an embedded SQLite database under ./lockstep-data/ unless told otherwise. \
            On first start it creates a default app and prints its credentials once.
            """)

    @Option(help: "Address to listen on (env LOCKSTEP_HOST).")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free one (env LOCKSTEP_PORT).")
    var port: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (env LOCKSTEP_LOG_LEVEL).")
    var logLevel: String?

    @OptionGroup var storage: StorageOptions
    @OptionGroup var limits: LimitOptions
    @OptionGroup var network: NetworkOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var webhooks: WebhookOptions

    @Option(
        name: .customLong("static-dir"),
        help: ArgumentHelp(
            "A folder served as a static site beside the API, e.g. Examples/InventoryPortal (env LOCKSTEP_STATIC_DIR): every file in it is public. The API's paths come first. None by default.",
            valueName: "path"))
    var staticDirectory: String?

    @Option(name: .customLong("clock-offset-ms"), help: ArgumentHelp("Testing only: report server time shifted by this many milliseconds.", visibility: .hidden))
    var clockOffsetMilliseconds: Double = 0

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let levelName = logLevel ?? environment["LOCKSTEP_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelName) else { throw ValidationError("unknown log level \(levelName)") }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "lockstep")
        logger.logLevel = level

        let host = host ?? environment["LOCKSTEP_HOST"] ?? "127.0.0.1"
        guard let port = port ?? environment["LOCKSTEP_PORT"].map({ Int($0) }) ?? 8080 else {
            throw ValidationError("LOCKSTEP_PORT must be a port number")
        }
        let clock = ServerClockSource(offsetNanoseconds: Int64(clockOffsetMilliseconds * 1e6))
        let releases = try storeOptions.releaseService(clock: clock)
        // Every option is checked before anything is made on disk.
        var resolvedLimits = try limits.resolved()
        resolvedLimits.webhooks = try webhooks.resolved()
        let trustedProxies = try network.trustedProxies()
        let origins = try network.origins()
        let metricsListener = try network.metricsListener()
        let jwksCertificateAuthorities = try network.jwksCertificateAuthorities()
        let directoryLock = try storage.lockDataDirectory()
        let store = try await storage.openStore()
        let blobDirectory = storage.resolvedBlobDirectory
        try PrivateFiles.createDirectory(blobDirectory.path)
        var services = LockstepServices(
            store: store, limits: resolvedLimits, clock: clock, logger: logger, blobDirectory: blobDirectory,
            jwksCertificateAuthorities: jwksCertificateAuthorities)
        services.releases = releases
        services.trustedProxies = trustedProxies
        services.origins = origins
        services.metrics = MetricsAccess(bearerToken: network.metricsBearerToken, onMainListener: metricsListener == nil)
        services.staticDirectory = try resolvedStaticDirectory()
        if clockOffsetMilliseconds != 0 {
            logger.warning("testing only: server time is shifted by \(clockOffsetMilliseconds) ms")
        }
        try await DefaultApp.ensure(services: services, storage: storage)
        try await StartupChecks.run(services: services, storage: storage, logger: logger)
        let app = LockstepServer.application(services: services, host: host, port: port) { channel in
            let address = channel.localAddress.map { "\($0.ipAddress ?? host):\($0.port ?? port)" } ?? "\(host):\(port)"
            say("Lockstep is listening on http://\(address), storing data in \(storage.storeDescription)")
        }
        var listeners: [any Service] = []
        if let metricsListener {
            listeners.append(LockstepServer.metricsApplication(
                access: services.metrics, host: metricsListener.host, port: metricsListener.port, logger: logger
            ) { channel in
                say("Metrics are served on http://\(metricsListener.host):\(channel.localAddress?.port ?? metricsListener.port)/metrics")
            })
        }
        // The HTTP servers come last so that a graceful shutdown stops them first.
        let group = ServiceGroup(
            services: storage.companionServices(for: store, services: services, logger: logger) + listeners + [app],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        do {
            try await group.run()
        } catch {
            await storage.close(store)
            throw error
        }
        await storage.close(store)
        withExtendedLifetime(directoryLock) {}
    }

    /// The `--static-dir` folder, checked at startup: one that is not a readable folder is
    /// refused now, not as 404s later. Made absolute at startup.
    private func resolvedStaticDirectory() throws -> String? {
        guard let path = staticDirectory ?? ProcessInfo.processInfo.environment["LOCKSTEP_STATIC_DIR"], !path.isEmpty else { return nil }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue,
            FileManager.default.isReadableFile(atPath: path)
        else {
            throw ValidationError("--static-dir \(path) is not a readable folder")
        }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }
}

/// The app a fresh server creates so that it is usable at once.
enum DefaultApp {
    static func ensure(services: LockstepServices, storage: StorageOptions) async throws {
        guard try await services.store.apps().isEmpty,
            let credentials = try await services.accounts.createFirstApp(name: "default")
        else { return }
        let text = """
            {
              "app_id": "\(credentials.appID)",
              "api_key": "\(credentials.apiKey)",
              "admin_token": "\(credentials.adminToken)"
            }

            """
        var keptIn = "kept in no file (the store is PostgreSQL): copy them now"
        if storage.resolvedDatabaseURL == nil {
            let path = storage.resolvedDataDirectory + "/default-app.json"
            do {
                // One left from a database that is gone names an app that is gone too.
                try? FileManager.default.removeItem(atPath: path)
                try PrivateFiles.writeNewFile(path, contents: text)
            } catch {
                throw CommandError("could not write the default app's credentials: \(error)")
            }
            keptIn = "kept in \(path) (readable by you only)"
        }
        say("""
            Created the default app. Its credentials are shown once here, and \(keptIn):
              app id:      \(credentials.appID)
              API key:     \(credentials.apiKey)
              admin token: \(credentials.adminToken)
            """)
    }
}
