import ArgumentParser
import CommandLineSupport
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

    @Option(
        name: .customLong("server-key-file"),
        help: ArgumentHelp(
            "The file holding the key that seals the database's secrets, made (0600) on first start; keep it apart from the database's backups. Default: <data-dir>/server.key (env LOCKSTEP_SERVER_KEY_FILE, or the key itself as 64 hex digits in LOCKSTEP_SERVER_KEY).",
            valueName: "file"))
    var serverKeyFile: String?

    @Option(
        name: .customLong("blob-dir"),
        help: "Directory of blobs (attachments); with PostgreSQL, one directory every node shares. Default: <data-dir>/blobs (env LOCKSTEP_BLOB_DIR).")
    var blobDirectory: String?

    var resolvedBlobDirectory: URL {
        URL(fileURLWithPath: blobDirectory ?? ProcessInfo.processInfo.environment["LOCKSTEP_BLOB_DIR"] ?? resolvedDataDirectory + "/blobs")
    }

    var resolvedDataDirectory: String {
        dataDirectory ?? ProcessInfo.processInfo.environment["LOCKSTEP_DATA_DIR"] ?? "./lockstep-data"
    }

    var resolvedDatabaseURL: String? {
        databaseURL ?? ProcessInfo.processInfo.environment["LOCKSTEP_DATABASE_URL"]
    }

    /// Where the server key comes from: the environment's `LOCKSTEP_SERVER_KEY` (`nil`), or a file.
    var resolvedServerKeyFile: String? {
        let environment = ProcessInfo.processInfo.environment
        if serverKeyFile == nil, environment["LOCKSTEP_SERVER_KEY"] != nil { return nil }
        return serverKeyFile ?? environment["LOCKSTEP_SERVER_KEY_FILE"] ?? resolvedDataDirectory + "/server.key"
    }

    /// The server key, from the environment or its file (made on first use, in a private
    /// data directory when it lives there).
    func serverKey() throws -> ServerKey {
        guard let path = resolvedServerKeyFile else {
            do {
                return try ServerKey(hex: ProcessInfo.processInfo.environment["LOCKSTEP_SERVER_KEY"] ?? "")
            } catch {
                throw ValidationError("LOCKSTEP_SERVER_KEY: \(error)")
            }
        }
        if path == resolvedDataDirectory + "/server.key" { try PrivateFiles.createDirectory(resolvedDataDirectory) }
        return try ServerKey.loadOrCreate(path: path).key
    }

    /// The lock a server holds on its SQLite data directory for as long as it runs (`nil` on
    /// PostgreSQL, where nodes share the database by design).
    func lockDataDirectory() throws -> DataDirectoryLock? {
        guard resolvedDatabaseURL == nil else { return nil }
        return try DataDirectoryLock(directory: resolvedDataDirectory)
    }

    /// The embedded store's database file.
    var databasePath: String { resolvedDataDirectory + "/lockstep.sqlite" }

    /// The server key, which must exist already (a restore must not make a new one).
    func existingServerKey() throws -> ServerKey {
        guard let path = resolvedServerKeyFile else { return try serverKey() }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandError("there is no server key at \(path): pass the key file the backup's server used (--server-key-file) or LOCKSTEP_SERVER_KEY")
        }
        return try ServerKey.load(path: path)
    }

    /// Opens the configured store, creating the data directory (0700) for SQLite if needed.
    func openStore() async throws -> any SyncStore {
        let key = try serverKey()
        if let url = resolvedDatabaseURL {
            return try await PostgresStore.connect(url: url, serverKey: key)
        }
        let directory = resolvedDataDirectory
        try PrivateFiles.createDirectory(directory)
        return try SQLiteStore(path: databasePath, serverKey: key)
    }

    /// A sentence for each file of the server's that other local accounts can read.
    var fileWarnings: [String] {
        var files = resolvedServerKeyFile.map { [$0] } ?? []
        guard resolvedDatabaseURL == nil else { return PrivateFiles.warnings(directory: nil, files: files) }
        let directory = resolvedDataDirectory
        files += ["lockstep.sqlite", "lockstep.sqlite-wal", "lockstep.sqlite-shm", "default-app.json"].map { directory + "/" + $0 }
        return PrivateFiles.warnings(directory: directory, files: files)
    }

    /// What runs beside the HTTP server for this store: on PostgreSQL, the relay that carries
    /// changes (and revocations of spaces) between the nodes sharing the database.
    func companionServices(for store: any SyncStore, services: LockstepServices, logger: Logger) -> [any Service] {
        guard let store = store as? PostgresStore else { return [] }
        let spaces = services.spaces
        return [PostgresChangeRelay(
            store: store, hub: services.hub, logger: logger, revokeSpace: { spaces.enforce($0) },
            recheckSpaces: { try await spaces.recheckOpenChannels() })]
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
