import Foundation
import GRDB
import LockstepCore
import LockstepPostgres
import LockstepServer
import PostgresNIO

/// The floor to measure the server against: the rows a change writes (its `changes` row and
/// its object), written by this process straight into the store's tables in large
/// transactions, with the store's durability, and no planning, no network, no server.
enum RawBaseline {
    static func measure(_ fresh: StoreFactory.Fresh, changes: Int, batch: Int) async throws -> BenchRate {
        let app = try await fresh.app()
        await fresh.close()
        let rows = (0..<changes).map { index in Row(index: index, app: app) }
        switch fresh.location {
        case .sqlite(let directory):
            return try await sqlite(path: directory + "/lockstep.sqlite", rows: rows, batch: batch)
        case .postgres(let url, _):
            return try await postgres(url: url, rows: rows, batch: batch)
        }
    }

    /// One change's rows.
    struct Row {
        var owner: String
        var sequence: Int64
        var key: String
        var data: String
        var changeID: String
        var app: String

        init(index: Int, app: String) {
            owner = "writer-\(index % 100)"
            sequence = Int64(index / 100 + 1)
            key = "object-\(index % 10)"
            data = StoredValueCoding.text(BenchChange.data(index: index))
            changeID = "raw-\(index)"
            self.app = app
        }
    }

    private static func sqlite(path: String, rows: [Row], batch: Int) async throws -> BenchRate {
        let pool = try DatabasePool(path: path)
        // Set on the writer once the pool is open: GRDB sets NORMAL when it turns WAL on.
        try await pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let started = ContinuousClock.now
        for chunk in stride(from: 0, to: rows.count, by: batch) {
            let part = Array(rows[chunk..<min(chunk + batch, rows.count)])
            try await pool.write { db in
                let change = try db.cachedStatement(sql: """
                    INSERT INTO changes (app_id, owner, bucket, sequence, key, operation, source_version, end_version, diff,
                                         client_id, change_id, edit_time, app_sequence, committed_at)
                    VALUES (?, ?, 'bench', ?, ?, 'M', ?, ?, ?, 'raw', ?, 0, 0, 0)
                    """)
                let object = try db.cachedStatement(sql: """
                    INSERT INTO objects (app_id, owner, bucket, key, version, data, deleted, member_stamps, sequence)
                    VALUES (?, ?, 'bench', ?, ?, ?, 0, '{}', ?)
                    ON CONFLICT (app_id, owner, bucket, key) DO UPDATE SET
                        version = excluded.version, data = excluded.data, sequence = excluded.sequence
                    """)
                for row in part {
                    try change.execute(arguments: [row.app, row.owner, row.sequence, row.key, row.sequence - 1, row.sequence, row.data, row.changeID])
                    try object.execute(arguments: [row.app, row.owner, row.key, row.sequence, row.data, row.sequence])
                }
            }
        }
        return BenchRate(changes: rows.count, since: started)
    }

    private static func postgres(url: String, rows: [Row], batch: Int) async throws -> BenchRate {
        let configuration = try PostgresStore.Configuration(url: url)
        let connection = try await PostgresConnection.connect(
            configuration: try configuration.connectionConfiguration(application: "lockstep-bench raw"), id: 1,
            logger: Logger(label: "lockstep-bench"))
        defer { Task { try? await connection.close() } }
        let logger = Logger(label: "lockstep-bench")
        // The buckets' rows, as a server's first commit to each makes them: changes name their
        // bucket by its row's number.
        let owners = JSONValue.array(Set(rows.map { [$0.app, $0.owner] }).map { .array($0.map(JSONValue.string)) }).description
        try await connection.query("""
            INSERT INTO buckets (app_id, owner, name, epoch, last_sequence)
            SELECT x->>0, x->>1, 'bench', 1, 0 FROM json_array_elements(\(owners)::json) AS x
            ON CONFLICT (app_id, owner, name) DO NOTHING
            """, logger: logger)
        let started = ContinuousClock.now
        for chunk in stride(from: 0, to: rows.count, by: batch) {
            let part = rows[chunk..<min(chunk + batch, rows.count)]
            // Columns as arrays in PostgreSQL's binary format, as the server writes them.
            let apps = part.map(\.app), owners = part.map(\.owner), sequences = part.map(\.sequence)
            let keys = part.map(\.key), data = part.map(\.data), changeIDs = part.map(\.changeID)
            try await connection.query("BEGIN", logger: logger)
            try await connection.query("""
                INSERT INTO changes (bucket_id, app_id, owner, bucket, sequence, key, operation, source_version, end_version, diff,
                                     client_id, change_id, edit_time, app_sequence, committed_at, origin)
                SELECT b.id, x.app_id, x.owner, 'bench', x.sequence, x.key, 'M', x.sequence - 1, x.sequence, x.data, 'raw', x.change_id,
                       0, 0, 0, 'raw'
                FROM unnest(\(apps)::text[], \(owners)::text[], \(sequences)::bigint[], \(keys)::text[], \(data)::text[], \(changeIDs)::text[])
                    AS x(app_id, owner, sequence, key, data, change_id)
                JOIN buckets b ON b.app_id = x.app_id AND b.owner = x.owner AND b.name = 'bench'
                """, logger: logger)
            try await connection.query("""
                INSERT INTO objects (app_id, owner, bucket, key, version, data, deleted, member_stamps, sequence)
                SELECT DISTINCT ON (app_id, owner, key) app_id, owner, 'bench', key, sequence, data, false, '{}', sequence
                FROM unnest(\(apps)::text[], \(owners)::text[], \(sequences)::bigint[], \(keys)::text[], \(data)::text[])
                    AS x(app_id, owner, sequence, key, data)
                ORDER BY app_id, owner, key, sequence DESC
                ON CONFLICT (app_id, owner, bucket, key) DO UPDATE SET
                    version = excluded.version, data = excluded.data, sequence = excluded.sequence
                """, logger: logger)
            try await connection.query("COMMIT", logger: logger)
        }
        return BenchRate(changes: rows.count, since: started)
    }
}
