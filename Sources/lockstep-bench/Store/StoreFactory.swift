import CommandLineSupport
import Foundation
import LockstepPostgres
import LockstepServer
import Logging

/// Fresh, empty stores for one benchmark run: a new SQLite file each, or a new schema of one
/// PostgreSQL database each (left behind for inspection: point it at a scratch database).
struct StoreFactory {
    enum Location {
        /// The data directory, holding `lockstep.sqlite`.
        case sqlite(directory: String)
        /// The database URL, naming the store's schema, and the file of the key its secrets
        /// are sealed with (a SQLite store keeps its key beside the database).
        case postgres(url: String, serverKeyFile: String)
    }

    /// One fresh store, open.
    struct Fresh {
        let store: any SyncStore
        let location: Location

        /// Inserts an app row, so that commits draw app-wide sequence numbers.
        func app() async throws -> String {
            let id = "bench-" + UUID().uuidString.prefix(8).lowercased()
            try await store.insertApp(AppRecord(id: id, name: "bench", apiKeyHash: "-", adminTokenHash: "-", createdAt: 0))
            return id
        }

        func close() async {
            await (store as? PostgresStore)?.shutdown()
        }

        /// The `lockstep serve` options that open this store.
        var serveArguments: [String] {
            switch location {
            case .sqlite(let directory): ["--data-dir", directory]
            case .postgres(let url, let keyFile): ["--database-url", url, "--server-key-file", keyFile]
            }
        }
    }

    private let make: () async throws -> Fresh

    static func sqlite(directory: String) -> StoreFactory {
        StoreFactory {
            let data = directory + "/sqlite-" + UUID().uuidString.prefix(8).lowercased()
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            return Fresh(store: try SQLiteStore(path: data + "/lockstep.sqlite"), location: .sqlite(directory: data))
        }
    }

    static func postgres(url: String) throws -> StoreFactory {
        guard try PostgresStore.Configuration(url: url).schema == nil else {
            throw CommandError("give the database without ?schema=: each figure makes a schema of its own")
        }
        return StoreFactory {
            let schemaURL = url + (url.contains("?") ? "&" : "?") + "schema=bench_" + UUID().uuidString.prefix(8).lowercased()
            var logger = Logger(label: "lockstep-bench")
            logger.logLevel = .error
            // Kept beside the schema it opens, for inspection afterwards.
            let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-bench-\(UUID().uuidString).key").path
            let key = try ServerKey.loadOrCreate(path: keyFile).key
            return Fresh(
                store: try await PostgresStore.connect(url: schemaURL, serverKey: key, logger: logger),
                location: .postgres(url: schemaURL, serverKeyFile: keyFile))
        }
    }

    func fresh() async throws -> Fresh {
        try await make()
    }
}
