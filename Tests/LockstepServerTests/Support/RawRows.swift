import GRDB
import LockstepPostgres
import LockstepServer
import PostgresNIO

/// SQL run on a store's database behind the store's back: to see what is really stored, and
/// to put rows there the way an older server left them.
enum RawRows {
    /// The first column of every row, as text.
    static func read(_ kind: StoreKind, _ store: any SyncStore, _ sql: String) async throws -> [String] {
        switch kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: try sqlitePath(store))
            return try await queue.read { db in try String.fetchAll(db, sql: sql) }
        case .postgres:
            return try await withConnection(store) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestStores.quietLogger).collect()
                    .map { try $0.decode(String.self) }
            }
        }
    }

    static func execute(_ kind: StoreKind, _ store: any SyncStore, _ sql: String) async throws {
        switch kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: try sqlitePath(store))
            try await queue.write { db in try db.execute(sql: sql) }
        case .postgres:
            try await withConnection(store) { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: TestStores.quietLogger).collect()
            }
        }
    }

    private static func sqlitePath(_ store: any SyncStore) throws -> String {
        guard let store = store as? SQLiteStore else { throw RawRowsError.wrongStore }
        return store.path
    }

    private static func withConnection<T>(_ store: any SyncStore, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        guard let store = store as? PostgresStore else { throw RawRowsError.wrongStore }
        let configuration = store.configuration
        let connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: configuration.host, port: configuration.port, username: configuration.username,
                password: configuration.password, database: configuration.database, tls: .disable),
            id: 2, logger: TestStores.quietLogger)
        do {
            if let schema = configuration.schema {
                _ = try await connection.query(PostgresQuery(unsafeSQL: "SET search_path TO \(schema)"), logger: TestStores.quietLogger).collect()
            }
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

enum RawRowsError: Error {
    case wrongStore
}
