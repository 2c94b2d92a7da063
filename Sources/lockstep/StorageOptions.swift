import ArgumentParser
import Foundation
import LockstepServer

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
        if resolvedDatabaseURL != nil {
            throw ValidationError("--database-url needs the PostgreSQL store, which this build does not include yet")
        }
        let directory = resolvedDataDirectory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try SQLiteStore(path: directory + "/lockstep.sqlite")
    }

    /// A description of the store for people: a path, or the database host without credentials.
    var storeDescription: String {
        if let url = resolvedDatabaseURL, let parsed = URL(string: url) {
            return "PostgreSQL at \(parsed.host ?? "?")\(parsed.port.map { ":\($0)" } ?? "")\(parsed.path)"
        }
        return "SQLite at \(resolvedDataDirectory)/lockstep.sqlite"
    }
}
