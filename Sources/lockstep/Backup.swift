import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepPostgres
import LockstepServer

/// `lockstep backup DEST`: a consistent copy of a live SQLite store.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the embedded SQLite store to a new file, consistently, while the server runs.",
        discussion: """
            The copy holds every change acknowledged before it began, and is checked before this \
            command succeeds. It does not hold the server key (keep server.key, or \
            LOCKSTEP_SERVER_KEY, apart from backups): restoring needs it. Given a PostgreSQL URL, \
            it prints the pg_dump command that backs that database up instead.
            """)

    @Argument(help: "The backup file to make; it must not exist.")
    var destination: String

    @OptionGroup var storage: StorageOptions

    func run() async throws {
        if let url = storage.resolvedDatabaseURL { throw try PostgresBackup.refusal(url: url, restoring: false) }
        do {
            let summary = try SQLiteBackup.copy(database: storage.databasePath, to: destination)
            say("backed up \(storage.databasePath) to \(destination): \(summary.description)")
            say("the server key is not in the backup: restoring needs \(storage.resolvedServerKeyFile ?? "LOCKSTEP_SERVER_KEY")")
        } catch let error as BackupError {
            throw CommandError(error.description)
        }
    }
}

/// `lockstep restore SOURCE`: puts a backup in place of a stopped server's store.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a backup made by `lockstep backup` and install it as the store of --data-dir.",
        discussion: """
            The server must be stopped (a running server holds its data directory). The backup \
            must open with the server key (--server-key-file or LOCKSTEP_SERVER_KEY) its secrets \
            are sealed under. A store already in the data directory is replaced only with --replace.
            """)

    @Argument(help: "The backup file.")
    var source: String

    @Flag(help: "Replace the store already in the data directory.")
    var replace = false

    @OptionGroup var storage: StorageOptions

    func run() async throws {
        if let url = storage.resolvedDatabaseURL { throw try PostgresBackup.refusal(url: url, restoring: true) }
        do {
            let lock = try storage.lockDataDirectory()
            if FileManager.default.fileExists(atPath: storage.databasePath) && !replace {
                throw CommandError("\(storage.databasePath) exists: pass --replace to put the backup in its place")
            }
            let summary = try SQLiteBackup.restore(source, into: storage.databasePath, serverKey: try storage.existingServerKey())
            withExtendedLifetime(lock) {}
            say("restored \(source) into \(storage.databasePath): \(summary.description)")
        } catch let error as BackupError {
            throw CommandError(error.description)
        } catch let error as PrivateFileError {
            throw CommandError(error.description)
        }
    }
}

/// What `backup` and `restore` say about a PostgreSQL store, which PostgreSQL's own tools copy:
/// the command for this very database, as the README's Backups section gives it.
enum PostgresBackup {
    static func refusal(url: String, restoring: Bool) throws -> CommandError {
        let configuration: PostgresStore.Configuration
        do {
            configuration = try PostgresStore.Configuration(url: url)
        } catch {
            throw CommandError(error.description)
        }
        let schema = configuration.schema ?? "public"
        let command =
            restoring
            ? "psql '\(configuration.toolURL)' --single-transaction -v ON_ERROR_STOP=1 -c \"DROP SCHEMA IF EXISTS \(schema) CASCADE\" -f lockstep.sql"
            : "pg_dump --schema=\(schema) '\(configuration.toolURL)' > lockstep.sql"
        return CommandError("""
            this server stores its data in PostgreSQL, which `lockstep \(restoring ? "restore" : "backup")` does not \
            \(restoring ? "write" : "read"); use PostgreSQL's own tools\(restoring ? ", with every node stopped" : ""):
              \(command)
            (the password left out: they ask for it, or read PGPASSWORD or ~/.pgpass; see the README's Backups)
            """)
    }
}
