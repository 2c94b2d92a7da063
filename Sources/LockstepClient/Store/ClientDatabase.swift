import Foundation
import GRDB

/// Opens (or creates) the client's SQLite file and keeps its schema current.
///
/// One file per store directory holds everything the client must not lose: each object's
/// local state, its ghost (the last version the server acknowledged), the outbox, each
/// bucket's cursor, the bucket options the server sent, and the attachments it holds and
/// must upload (their bytes are files beside it, see ``BlobFiles``). The file is in WAL mode with
/// `synchronous = FULL`, so a write that has returned survives a crash or a power cut.
enum ClientDatabase {
    static let fileName = "lockstep-client.sqlite"

    static func open(directory: URL) throws -> DatabasePool {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.label = "LockstepClient"
        configuration.busyMode = .timeout(10)
        let pool = try DatabasePool(path: directory.appendingPathComponent(fileName).path, configuration: configuration)
        // WAL alone is durable only at checkpoints; FULL syncs the log on every commit. Set on
        // the pool's one writer connection once it is open: GRDB turns WAL on after
        // `prepareDatabase` runs, and sets NORMAL as it does, so a pragma there is undone.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try migrator.migrate(pool)
        return pool
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                -- What the app sees: NULL data with deleted = 1 is a tombstone.
                CREATE TABLE objects (
                    bucket TEXT NOT NULL, key TEXT NOT NULL, data TEXT, deleted INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (bucket, key));
                -- The last version the server acknowledged; walk marks the index walk that last saw it.
                CREATE TABLE ghosts (
                    bucket TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL, data TEXT,
                    deleted INTEGER NOT NULL DEFAULT 0, walk INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (bucket, key));
                CREATE TABLE outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    bucket TEXT NOT NULL, key TEXT NOT NULL, ccid TEXT NOT NULL UNIQUE,
                    operation TEXT NOT NULL, priority INTEGER NOT NULL, status TEXT NOT NULL,
                    source_version INTEGER, diff TEXT, full_data TEXT, expected TEXT, edit_time INTEGER,
                    error INTEGER, message TEXT, created_at REAL NOT NULL);
                CREATE INDEX outbox_by_key ON outbox (bucket, key, id);
                CREATE INDEX outbox_by_priority ON outbox (bucket, status, priority DESC, id);
                -- A bucket's resume point; walk_* describe an index walk under way.
                CREATE TABLE buckets (
                    name TEXT PRIMARY KEY, cv TEXT, walk_current TEXT, walk_mark TEXT,
                    walk_id INTEGER NOT NULL DEFAULT 0, options TEXT);
                """)
        }
        migrator.registerMigration("v2: peers") { db in
            try db.execute(sql: """
                -- What each row's edits set and unset ({"set":{…},"unset":[…]}), kept as they coalesce;
                -- author is the client that made a change carried for a peer (NULL: this client);
                -- shared rows were handed to peers and take no more edits.
                ALTER TABLE outbox ADD COLUMN members TEXT;
                ALTER TABLE outbox ADD COLUMN author TEXT;
                ALTER TABLE outbox ADD COLUMN shared INTEGER NOT NULL DEFAULT 0;
                -- Who last wrote each member of an object, by corrected time: peers merge by it.
                CREATE TABLE stamps (
                    bucket TEXT NOT NULL, key TEXT NOT NULL, member TEXT NOT NULL,
                    time INTEGER, clientid TEXT NOT NULL, ccid TEXT NOT NULL,
                    PRIMARY KEY (bucket, key, member));
                -- Every change this client has to give peers, its own and those it carries, in the
                -- order it learnt them; peers resume by seq. source is the peer it came from.
                CREATE TABLE peer_log (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, bucket TEXT NOT NULL, ccid TEXT NOT NULL,
                    change TEXT NOT NULL, source TEXT, UNIQUE (bucket, ccid));
                -- How far into each peer's log this client has applied.
                CREATE TABLE peer_cursors (
                    bucket TEXT NOT NULL, peer TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (bucket, peer));
                """)
        }
        migrator.registerMigration("v3: applied changes") { db in
            try db.execute(sql: """
                -- The ccids of other clients' changes taken from the server, in buckets that meet
                -- peers: a peer that brings one of them later brings nothing new.
                CREATE TABLE applied_changes (bucket TEXT NOT NULL, ccid TEXT NOT NULL, PRIMARY KEY (bucket, ccid)) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v4: attachments") { db in
            try db.execute(sql: """
                -- Attachment blobs this device knows: stored = 1 while its file is in attachments/
                -- (last_used orders the cache's evictions); uploaded = 1 once this user's upload of
                -- it completed, so the server holds it for them.
                CREATE TABLE blobs (
                    sha256 TEXT PRIMARY KEY, size INTEGER NOT NULL, type TEXT NOT NULL,
                    stored INTEGER NOT NULL DEFAULT 0, last_used REAL NOT NULL DEFAULT 0,
                    uploaded INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
                CREATE INDEX blobs_by_use ON blobs (stored, last_used);
                -- The upload queue, highest priority first, then oldest (seq). location is the
                -- server's upload URL; acknowledged the bytes the server confirmed; error, when set,
                -- stops the upload for good (a damaged local file, a refusal).
                CREATE TABLE uploads (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, sha256 TEXT NOT NULL UNIQUE, priority INTEGER NOT NULL,
                    location TEXT, acknowledged INTEGER NOT NULL DEFAULT 0, restarts INTEGER NOT NULL DEFAULT 0,
                    error TEXT, created_at REAL NOT NULL);
                -- A queued change holding members that refer to attachments not uploaded yet: it is
                -- not sent, and does not hold back the object's later changes, until they are.
                ALTER TABLE outbox ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;
                """)
        }
        return migrator
    }
}
