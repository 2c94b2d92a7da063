import Foundation
import LockstepCore
@testable import LockstepPostgres
import LockstepServer
import Logging
import PostgresNIO
import Testing

/// The stores every contract test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// Fresh, real stores for tests: a SQLite file in a new temporary directory, or a new schema
/// in the PostgreSQL database named by `LOCKSTEP_TEST_POSTGRES_URL` (`bash .ci/postgres.sh`
/// starts one and prints its URL). Each is deleted when the test ends, so runs never meet.
///
/// Without that variable the PostgreSQL cases are cancelled with the reason, so they show as
/// skipped rather than passed; when `CI` is set, they fail instead.
enum TestStores {
    static func with<T>(_ kind: StoreKind, _ body: (any SyncStore) async throws -> T) async throws -> T {
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockstep-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            return try await body(try SQLiteStore(path: directory.appendingPathComponent("lockstep.sqlite").path))
        case .postgres:
            return try await withPostgresSchema { configuration in
                let store = try await PostgresStore.connect(configuration, serverKey: serverKey, logger: quietLogger)
                do {
                    let result = try await body(store)
                    await store.shutdown()
                    return result
                } catch {
                    await store.shutdown()
                    throw error
                }
            }
        }
    }

    /// The same database opened again by a new store, as a restarted server opens it.
    static func reopening<T>(_ kind: StoreKind, _ store: any SyncStore, _ body: (any SyncStore) async throws -> T) async throws -> T {
        switch kind {
        case .sqlite:
            guard let store = store as? SQLiteStore else { throw TestStoreError.wrongKind }
            return try await body(try SQLiteStore(path: store.path))
        case .postgres:
            guard let store = store as? PostgresStore else { throw TestStoreError.wrongKind }
            let reopened = try await PostgresStore.connect(store.configuration, serverKey: serverKey, logger: quietLogger)
            do {
                let result = try await body(reopened)
                await reopened.shutdown()
                return result
            } catch {
                await reopened.shutdown()
                throw error
            }
        }
    }

    /// A configuration for a new, empty schema of the test database, dropped after `body`.
    static func withPostgresSchema<T>(_ body: (PostgresStore.Configuration) async throws -> T) async throws -> T {
        var configuration = try postgresConfiguration()
        configuration.schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        do {
            let result = try await body(configuration)
            try await dropSchema(of: configuration)
            return result
        } catch {
            try? await dropSchema(of: configuration)
            throw error
        }
    }

    static let postgresVariable = "LOCKSTEP_TEST_POSTGRES_URL"

    /// The server key of test stores: one for all, as nodes sharing a database need.
    static let serverKey = try! ServerKey(hex: String(repeating: "5e", count: 32))

    private static func postgresConfiguration() throws -> PostgresStore.Configuration {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment[postgresVariable], !url.isEmpty else {
            let reason = "\(postgresVariable) is not set, so the PostgreSQL store was not tested; `bash .ci/postgres.sh` starts a server and prints its URL"
            if environment["CI"] != nil {
                Issue.record("\(reason) (and CI is set, where it must be)")
                throw TestStoreError.postgresMissing
            }
            // A cancelled test case is easy to miss in the output: say why, as a warning, too.
            Issue.record(Comment(rawValue: "skipped: " + reason), severity: .warning)
            try Test.cancel(Comment(rawValue: reason))
        }
        return try PostgresStore.Configuration(url: url)
    }

    private static func dropSchema(of configuration: PostgresStore.Configuration) async throws {
        guard let schema = configuration.schema else { return }
        let connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: configuration.host, port: configuration.port, username: configuration.username,
                password: configuration.password, database: configuration.database, tls: .disable),
            id: 1, logger: quietLogger)
        try await connection.query("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE", logger: quietLogger)
        try await connection.close()
    }

    /// Runs `body` against a store on a new PostgreSQL schema that servers of an older layout
    /// left: migrated through migration `last` only, then holding the rows `statements` write;
    /// opening the store migrates the rest.
    static func withPostgresStore(migratedThrough last: Int, holding statements: [String], _ body: (PostgresStore) async throws -> Void)
        async throws
    {
        try await withPostgresSchema { configuration in
            let logger = quietLogger
            let connection = try await PostgresConnection.connect(
                configuration: try configuration.connectionConfiguration(application: "older layout"), id: 1, logger: logger)
            do {
                try await PostgresSchema.migrate(connection, schema: configuration.schema, through: last, logger: logger)
                for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
            let store = try await PostgresStore.connect(configuration, serverKey: serverKey, logger: logger)
            do {
                try await body(store)
                await store.shutdown()
            } catch {
                await store.shutdown()
                throw error
            }
        }
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "lockstep-test-store")
        logger.logLevel = .error
        return logger
    }
}

enum TestStoreError: Error {
    case postgresMissing
    case wrongKind
}

extension TestServer {
    /// Runs `body` against a real server on a store of `kind` (a new PostgreSQL schema, or a
    /// SQLite file), stopping it afterwards.
    static func with<T>(
        _ kind: StoreKind, limits: Limits = testLimits, blobDirectory: URL? = nil, _ body: (TestServer) async throws -> T
    ) async throws -> T {
        try await TestStores.with(kind) { store in
            let server = try await TestServer.start(limits: limits, store: store, blobDirectory: blobDirectory)
            do {
                let result = try await body(server)
                await server.stop()
                return result
            } catch {
                await server.stop()
                throw error
            }
        }
    }
}
