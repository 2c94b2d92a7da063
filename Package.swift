// swift-tools-version:6.2
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Lockstep",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "LockstepCore", targets: ["LockstepCore"]),
        .library(name: "LockstepServer", targets: ["LockstepServer"]),
        .library(name: "LockstepPostgres", targets: ["LockstepPostgres"]),
        .library(name: "LockstepClient", targets: ["LockstepClient"]),
        .executable(name: "lockstep", targets: ["lockstep"]),
        .executable(name: "lockstep-bench", targets: ["lockstep-bench"]),
        .executable(name: "tictactoe", targets: ["tictactoe"]),
        .executable(name: "inventory", targets: ["inventory"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.30.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.20.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.25.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        // `swift package generate-documentation` only: a command plugin, linked into no product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "ChildProcesses",
            swiftSettings: strictSettings
        ),
        // What the two command-line tools share: output, their errors, the wall clock.
        .target(
            name: "CommandLineSupport",
            dependencies: [
                "LockstepClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LockstepCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LockstepServer",
            dependencies: [
                "LockstepCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C interface, which GRDB links already: the hot statements bind and read through it.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                // Fetches identity providers' JWKS over HTTPS, trusting an operator's private CA if told to;
                // NIOSSL is webhook requests' TLS too (WebhookSender, a client of its own that checks
                // the address it connects to).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            // The console's static files and lockstep.js, copied beside every binary (see
            // ConsoleFiles and SDKFiles; Clients/JavaScript/src is a link to SDK/JavaScript).
            resources: [.copy("Console/Files"), .copy("SDK/JavaScript")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LockstepPostgres",
            dependencies: [
                "LockstepCore",
                "LockstepServer",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LockstepClient",
            dependencies: [
                "LockstepCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "tictactoe",
            dependencies: [
                "LockstepClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/TicTacToe",
            exclude: ["README.md"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "inventory",
            dependencies: [
                "LockstepClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Inventory",
            exclude: ["README.md"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "lockstep",
            dependencies: [
                "ChildProcesses",
                "CommandLineSupport",
                "LockstepCore",
                "LockstepServer",
                "LockstepPostgres",
                "LockstepClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Load generators and system benchmarks against peers (nginx, Redis, raw SQLite and
        // PostgreSQL): never shipped in `lockstep`.
        .executableTarget(
            name: "lockstep-bench",
            dependencies: [
                "ChildProcesses",
                "CommandLineSupport",
                "LockstepCore",
                "LockstepServer",
                "LockstepPostgres",
                "LockstepClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // `lockstep-bench auth` signs the JWTs it checks.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LockstepCoreTests",
            dependencies: [
                "LockstepCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LockstepServerTests",
            dependencies: [
                "ChildProcesses",
                "LockstepServer",
                "LockstepPostgres",
                "LockstepCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "WSClient", package: "swift-websocket"),
                // Signs the JWTs the identity provider tests check.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            // The test identity provider, run by IdentityProviderProcess with Python.
            exclude: ["IdentityProviders/identity_provider.py"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LockstepClientTests",
            dependencies: [
                "ChildProcesses",
                "CommandLineSupport",
                "LockstepClient",
                "lockstep",
                "lockstep-bench",
                "tictactoe",
                "inventory",
                "LockstepCore",
                "LockstepServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // The browser scenarios, run by ConsoleBrowserTests and LockstepJSBrowserTests with Python and selenium;
            // the webhook receiver that verifies signatures with the standardwebhooks package.
            exclude: ["Console/console_browser.py", "LockstepJS/lockstepjs_browser.py", "Webhooks/webhook_receiver.py"],
            swiftSettings: strictSettings
        ),
    ]
)
