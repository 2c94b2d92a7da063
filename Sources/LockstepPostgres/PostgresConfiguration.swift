import Foundation
public import PostgresNIO

extension PostgresStore {
    /// Where the database is and how to reach it.
    ///
    /// Usually read from a URL, `postgres://user:password@host:port/database`, with these
    /// optional query parameters:
    ///
    /// - `sslmode`: `disable` (the default, for a database on loopback or a private network),
    ///   `prefer`, `require` (encrypted, certificate not checked), `verify-ca` (certificate
    ///   checked against the system's roots) or `verify-full` (and the host name too);
    /// - `schema`: the schema that holds Lockstep's tables, created if missing, so that several
    ///   deployments (or test runs) can share one database; `public` by default.
    public struct Configuration: Sendable {
        public enum TLSMode: String, Sendable, CaseIterable {
            case disable
            case prefer
            case require
            case verifyCA = "verify-ca"
            case verifyFull = "verify-full"
        }

        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        /// The database; PostgreSQL's convention, the username, when `nil`.
        public var database: String?
        public var tls: TLSMode
        /// The schema of Lockstep's tables; `nil` for the server's default search path (`public`).
        public var schema: String?
        /// The most connections one node opens for queries (the change relay opens one more).
        public var maximumConnections: Int

        public init(
            host: String, port: Int = 5432, username: String, password: String?, database: String?, tls: TLSMode = .disable,
            schema: String? = nil, maximumConnections: Int = 20
        ) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.tls = tls
            self.schema = schema
            self.maximumConnections = maximumConnections
        }

        /// Reads `postgres://user:password@host:port/database?sslmode=…&schema=…`.
        public init(url text: String) throws(PostgresStoreError) {
            guard let components = URLComponents(string: text), let scheme = components.scheme,
                ["postgres", "postgresql"].contains(scheme.lowercased())
            else { throw PostgresStoreError.badURL("it must look like postgres://user:password@host:port/database") }
            guard let host = components.host, !host.isEmpty else { throw PostgresStoreError.badURL("it names no host") }
            guard let username = components.user, !username.isEmpty else { throw PostgresStoreError.badURL("it names no user") }
            let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            self.init(
                host: host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host,
                port: components.port ?? 5432, username: username, password: components.password,
                database: path.isEmpty ? nil : path)
            for item in components.queryItems ?? [] {
                switch (item.name, item.value) {
                case ("sslmode", let value?):
                    guard let mode = TLSMode(rawValue: value) else {
                        throw PostgresStoreError.badURL(
                            "sslmode \(value) is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    tls = mode
                case ("schema", let value?):
                    schema = value
                default:
                    throw PostgresStoreError.badURL("the parameter \(item.name) is not supported: use sslmode or schema")
                }
            }
            if let schema, !Self.isPlainIdentifier(schema) {
                throw PostgresStoreError.badURL("schema \(schema) must be 1 to 63 of a-z 0-9 _, starting with a letter")
            }
        }

        /// The URL without its password, for logs and messages.
        public var redactedDescription: String {
            "postgres://\(username)@\(host):\(port)/\(database ?? username)" + (schema.map { "?schema=\($0)" } ?? "")
        }

        /// This database's URL as PostgreSQL's own tools (`pg_dump`, `psql`) take it, without
        /// the password (they ask for it, or read `PGPASSWORD` or `~/.pgpass`): no `schema`,
        /// which libpq does not know and refuses the whole URL for, and, where the certificate
        /// is checked, the system's roots named (`sslrootcert`, Debian's bundle), as this store
        /// checks it; libpq would look for `~/.postgresql/root.crt` instead.
        public var toolURL: String {
            var components = URLComponents()
            components.scheme = "postgres"
            components.user = username
            components.host = host.contains(":") ? "[\(host)]" : host
            components.port = port
            components.path = "/" + (database ?? username)
            var query = tls == .disable ? [] : [URLQueryItem(name: "sslmode", value: tls.rawValue)]
            if tls == .verifyCA || tls == .verifyFull {
                query.append(URLQueryItem(name: "sslrootcert", value: "/etc/ssl/certs/ca-certificates.crt"))
            }
            components.queryItems = query.isEmpty ? nil : query
            return components.string ?? redactedDescription
        }

        /// The channel that carries this database's change notifications: one per schema, so that
        /// deployments sharing a database do not hear each other.
        var notificationChannel: String {
            schema.map { "lockstep_changes_\($0)" } ?? "lockstep_changes"
        }

        var clientConfiguration: PostgresClient.Configuration {
            var configuration = PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
            configuration.options.maximumConnections = maximumConnections
            configuration.options.additionalStartupParameters = startupParameters(application: "lockstep")
            return configuration
        }

        /// A single connection outside the pool, for migrations and for listening.
        public func connectionConfiguration(application: String) throws -> PostgresConnection.Configuration {
            var configuration = PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password, database: database,
                tls: try connectionTLS)
            configuration.options.additionalStartupParameters = startupParameters(application: application)
            return configuration
        }

        private func startupParameters(application: String) -> [(String, String)] {
            var parameters = [("application_name", application)]
            if let schema { parameters.append(("search_path", schema)) }
            return parameters
        }

        private var tlsConfiguration: TLSConfiguration? {
            var configuration = TLSConfiguration.makeClientConfiguration()
            switch tls {
            case .disable: return nil
            case .prefer, .require: configuration.certificateVerification = .none
            case .verifyCA: configuration.certificateVerification = .noHostnameVerification
            case .verifyFull: configuration.certificateVerification = .fullVerification
            }
            return configuration
        }

        private var clientTLS: PostgresClient.Configuration.TLS {
            guard let tlsConfiguration else { return .disable }
            return tls == .prefer ? .prefer(tlsConfiguration) : .require(tlsConfiguration)
        }

        private var connectionTLS: PostgresConnection.Configuration.TLS {
            get throws {
                guard let tlsConfiguration else { return .disable }
                let context = try NIOSSLContext(configuration: tlsConfiguration)
                return tls == .prefer ? .prefer(context) : .require(context)
            }
        }

        static func isPlainIdentifier(_ name: String) -> Bool {
            guard let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), name.utf8.count <= 63
            else { return false }
            return name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "_")
            }
        }
    }
}

/// Why the PostgreSQL store could not start.
public enum PostgresStoreError: Error, CustomStringConvertible, Equatable {
    case badURL(String)
    /// The server could not be reached, refused the credentials, or the schema could not be set up.
    case cannotConnect(String)

    public var description: String {
        switch self {
        case .badURL(let reason): "the PostgreSQL URL is not usable: \(reason)"
        case .cannotConnect(let reason): "could not open the PostgreSQL store: \(reason)"
        }
    }
}
