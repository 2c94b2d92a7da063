import Foundation
import GRDB
@testable import LockstepPostgres
@testable import LockstepServer
import PostgresNIO
import Testing

/// A node pointed at a database that a newer Lockstep migrated refuses to start, saying why,
/// instead of reading tables whose meaning it does not know (issue 20, bad configuration).
@Suite("Stores refuse a database a newer version migrated")
struct NewerSchemaTests {
    @Test("SQLite: a migration this version does not know stops the store from opening, and changes nothing")
    func sqlite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-newer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("lockstep.sqlite").path
        _ = try SQLiteStore(path: path)
        let database = try DatabaseQueue(path: path)
        try database.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')") }
        try database.close()

        #expect(throws: StoreError.newerSchema(unknownMigrations: ["v99: from the future"])) { try SQLiteStore(path: path) }
        let message = String(describing: StoreError.newerSchema(unknownMigrations: ["v99: from the future"]))
        #expect(message.contains("newer Lockstep") && message.contains("v99: from the future"))
    }

    @Test("PostgreSQL: a migration number past this version's stops the node from connecting, and changes nothing")
    func postgres() async throws {
        try await TestStores.withPostgresSchema { configuration in
            let logger = TestStores.quietLogger
            let store = try await PostgresStore.connect(configuration, serverKey: TestStores.serverKey, logger: logger)
            await store.shutdown()
            let future = PostgresSchema.migrations.count + 1
            let connection = try await PostgresConnection.connect(
                configuration: try configuration.connectionConfiguration(application: "newer"), id: 1, logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: "INSERT INTO \"\(configuration.schema ?? "public")\".lockstep_migrations (version) VALUES (\(future))"),
                logger: logger)
            try await connection.close()

            do {
                let again = try await PostgresStore.connect(configuration, serverKey: TestStores.serverKey, logger: logger)
                await again.shutdown()
                Issue.record("a node connected to a database migrated past its version")
            } catch {
                // The node's own error names the store; the reason inside it is the schema's.
                #expect(String(describing: error).contains(String(describing: StoreError.newerSchema(unknownMigrations: [String(future)]))))
            }
        }
    }
}
