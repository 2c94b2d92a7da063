#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import GRDB

/// Consistent copies of a live embedded store, and putting one back.
///
/// A backup is SQLite's online backup of the database as one read transaction sees it: in WAL
/// mode that snapshot does not hold the server's writes back, and it holds every change
/// acknowledged before the backup began (each was durable before it was answered). The copy is
/// a plain SQLite file of mode 0600, checked with `PRAGMA integrity_check` before it counts.
///
/// The server key is not part of a backup: the secrets inside stay sealed under it, so a
/// stolen backup alone gives no peer keys and no password hashes. Keep the key file apart, and
/// give it to ``restore(_:into:serverKey:)``.
public enum SQLiteBackup {
    /// What a backup holds.
    public struct Summary: Sendable, Equatable, CustomStringConvertible {
        public var bytes: Int
        public var apps: Int
        public var objects: Int
        public var changes: Int

        public var description: String {
            "\(apps) app\(apps == 1 ? "" : "s"), \(objects) objects, \(changes) changes, \(bytes) bytes"
        }
    }

    /// Copies the database at `source` (a server may be writing to it) to a new file
    /// `destination`, and checks the copy. Fails if `destination` exists.
    @discardableResult
    public static func copy(database source: String, to destination: String) throws -> Summary {
        guard FileManager.default.fileExists(atPath: source) else {
            throw BackupError("there is no database at \(source): is --data-dir the server's?")
        }
        guard try PrivateFiles.createFile(destination) else {
            throw BackupError("\(destination) exists: a backup never overwrites a file; name a new one")
        }
        do {
            var readOnly = Configuration()
            readOnly.readonly = true
            readOnly.busyMode = .timeout(10)
            let live = try DatabaseQueue(path: source, configuration: readOnly)
            let copy = try DatabaseQueue(path: destination)
            // All pages in one step: one read transaction, so one consistent snapshot.
            try live.backup(to: copy)
            try live.close()
            try copy.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try copy.close()
            return try check(destination)
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw error
        }
    }

    /// Checks that `path` is a whole Lockstep database this server can open: intact pages, a
    /// schema this version knows, and, given `serverKey`, secrets sealed under that key.
    @discardableResult
    public static func check(_ path: String, serverKey: ServerKey? = nil) throws -> Summary {
        guard FileManager.default.fileExists(atPath: path) else { throw BackupError("there is no file \(path)") }
        var readOnly = Configuration()
        readOnly.readonly = true
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue(path: path, configuration: readOnly)
        } catch {
            throw BackupError("\(path) is not a SQLite database: \(error)")
        }
        defer { try? database.close() }
        return try database.read { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            guard integrity == ["ok"] else {
                throw BackupError("\(path) is damaged: \(integrity.prefix(3).joined(separator: "; "))")
            }
            guard try db.tableExists("grdb_migrations"), try db.tableExists("apps") else {
                throw BackupError("\(path) is not a Lockstep database (it has no apps or migrations)")
            }
            let unknown = try SQLiteSchema.unknownMigrations(db)
            guard unknown.isEmpty else {
                throw BackupError("\(path) was written by a newer Lockstep (migrations \(unknown.joined(separator: ", "))): restore it with that version")
            }
            if let serverKey, try db.tableExists("security_state"),
                let sealedUnder = try String.fetchOne(db, sql: "SELECT server_key_id FROM security_state"), sealedUnder != serverKey.id
            {
                throw BackupError(String(describing: StoreError.wrongServerKey(expected: sealedUnder, given: serverKey.id)))
            }
            return Summary(
                bytes: (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0,
                apps: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM apps") ?? 0,
                objects: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM objects WHERE deleted = 0") ?? 0,
                changes: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM changes") ?? 0)
        }
    }

    /// Puts the backup `source` in place of the database at `databasePath` (and its `-wal` and
    /// `-shm` files), after checking it against `serverKey`. The server must not be running on
    /// that database: take its ``DataDirectoryLock`` first.
    @discardableResult
    public static func restore(_ source: String, into databasePath: String, serverKey: ServerKey) throws -> Summary {
        let summary = try check(source, serverKey: serverKey)
        let incoming = databasePath + ".restoring"
        // Left by a restore that was interrupted: never a store in use.
        try? FileManager.default.removeItem(atPath: incoming)
        try copy(database: source, to: incoming)
        for suffix in ["-wal", "-shm", ""] {
            let path = databasePath + suffix
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        }
        guard rename(incoming, databasePath) == 0 else {
            throw BackupError("could not move the restored database into place: \(String(cString: strerror(errno)))")
        }
        return summary
    }
}

/// Why a backup or a restore did not happen; nothing was changed.
public struct BackupError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
