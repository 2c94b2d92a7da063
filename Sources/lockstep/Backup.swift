import ArgumentParser
import CommandLineSupport
import Foundation
import LockstepServer

/// `lockstep backup DEST`: a consistent copy of a live SQLite store.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the embedded SQLite store to a new file, consistently, while the server runs.",
        discussion: """
            The copy holds every change acknowledged before it began, and is checked before this \
            command succeeds. It does not hold the server key (keep server.key, or \
            LOCKSTEP_SERVER_KEY, apart from backups): restoring needs it. For PostgreSQL, use \
            pg_dump (see the README's Operations section).
            """)

    @Argument(help: "The backup file to make; it must not exist.")
    var destination: String

    @OptionGroup var storage: StorageOptions

    func run() async throws {
        guard storage.resolvedDatabaseURL == nil else {
            throw ValidationError("this server stores its data in PostgreSQL: back it up with pg_dump (see the README's Operations section)")
        }
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
        guard storage.resolvedDatabaseURL == nil else {
            throw ValidationError("this server stores its data in PostgreSQL: restore it with pg_restore or psql (see the README's Operations section)")
        }
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
