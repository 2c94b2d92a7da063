import ArgumentParser
import Foundation
import LockstepPostgres
import LockstepServer
import Logging
import ServiceLifecycle

/// Where the server's data lives: the options `serve`, `apps` and `tokens` share.
struct StorageOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Directory of the embedded SQLite database (env LOCKSTEP_DATA_DIR).")
    var dataDirectory: String?

    @Option(name: .customLong("database-url"), help: "PostgreSQL URL to use instead of SQLite (env LOCKSTEP_DATABASE_URL).")
    var databaseURL: String?

    var resolvedDataDirectory: String {
        dataDirectory ?? ProcessInfo.processInfo.environment["LOCKSTEP_DATA_DIR"] ?? "./lockstep-data"
    }

    var resolvedDatabaseURL: String? {
        databaseURL ?? ProcessInfo.processInfo.environment["LOCKSTEP_DATABASE_URL"]
    }

    /// Opens the configured store, creating the data directory for SQLite if needed.
    func openStore() async throws -> any SyncStore {
        if let url = resolvedDatabaseURL {
            return try await PostgresStore.connect(url: url)
        }
        let directory = resolvedDataDirectory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try SQLiteStore(path: directory + "/lockstep.sqlite")
    }

    /// What runs beside the HTTP server for this store: on PostgreSQL, the relay that carries
    /// changes between the nodes sharing the database.
    func companionServices(for store: any SyncStore, hub: ChangeHub, logger: Logger) -> [any Service] {
        guard let store = store as? PostgresStore else { return [] }
        return [PostgresChangeRelay(store: store, hub: hub, logger: logger)]
    }

    /// Closes the store's connections, after the server has stopped.
    func close(_ store: any SyncStore) async {
        await (store as? PostgresStore)?.shutdown()
    }

    /// A description of the store for people: a path, or the database without credentials.
    var storeDescription: String {
        if let url = resolvedDatabaseURL {
            return "PostgreSQL at " + ((try? PostgresStore.Configuration(url: url).redactedDescription) ?? "?")
        }
        return "SQLite at \(resolvedDataDirectory)/lockstep.sqlite"
    }
}
